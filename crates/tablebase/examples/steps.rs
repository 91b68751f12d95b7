//! How long the build's steps are: builds the house tablebase on a pool of
//! `THREADS` threads (default 1) and prints, per tier, how many times one
//! thread went from one call of [`Progress::pause`] to the next, the
//! longest such step and how many took over 1 and 5 ms, so that a throttle
//! that pauses the build between steps is known to act within that time.
//! The times are wall times: on a machine with other work they include
//! the time the thread waited for its core.
//!
//!     cargo run --release -p baghchal-tablebase --example steps [THREADS]

use std::cell::Cell;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use baghchal_tablebase::{Progress, Tablebase};

/// The steps of one tier.
#[derive(Default, Clone, Copy)]
struct Steps {
    count: u64,
    longest: Duration,
    over_1ms: u64,
    over_5ms: u64,
}

/// Times the steps, by tier.
struct Timer {
    tiers: Mutex<Vec<(u32, Steps)>>,
}

thread_local! {
    /// When this thread last called the timer.
    static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
}

impl Timer {
    fn lap(&self) {
        let now = Instant::now();
        let Some(last) = LAST.with(|l| l.replace(Some(now))) else {
            return;
        };
        let step = now - last;
        let mut tiers = self.tiers.lock().expect("the timer's lock");
        if let Some((_, steps)) = tiers.last_mut() {
            steps.count += 1;
            steps.longest = steps.longest.max(step);
            steps.over_1ms += u64::from(step > Duration::from_millis(1));
            steps.over_5ms += u64::from(step > Duration::from_millis(5));
        }
    }
}

impl Progress for Timer {
    fn tier(&self, eaten: u32) {
        self.lap();
        let mut tiers = self.tiers.lock().expect("the timer's lock");
        tiers.push((eaten, Steps::default()));
    }

    fn advance(&self, _n: u64) {}

    fn pause(&self) {
        self.lap();
    }
}

fn main() {
    let threads = std::env::args()
        .nth(1)
        .map_or(1, |t| t.parse().expect("THREADS: a number"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let timer = Timer {
        tiers: Mutex::new(Vec::new()),
    };
    let started = Instant::now();
    pool.install(|| {
        Tablebase::build(&timer).expect("the build");
        // The last step, up to the end of the build.
        timer.lap();
    });
    println!(
        "built in {:.1} s on {threads} thread(s)",
        started.elapsed().as_secs_f64()
    );
    for (eaten, steps) in timer.tiers.into_inner().expect("the timer's lock") {
        println!(
            "{eaten} goats eaten: {} steps, the longest {:.2} ms, {} over 1 ms, {} over 5 ms",
            steps.count,
            steps.longest.as_secs_f64() * 1e3,
            steps.over_1ms,
            steps.over_5ms
        );
    }
}
