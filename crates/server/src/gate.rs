//! A future polled only once it has woken its task.
//!
//! A socket's task and a table's task each wait in a `select!` on the
//! frames of play and, beside them, on futures that fire once in seconds
//! or once in the server's life: the liveness timer, the shutdown. A
//! `select!` polls every branch each time the task runs and nothing is
//! ready, and a busy socket's task runs several times an action: those
//! polls cost some 1,300 instructions an action (the timer's wheel entry,
//! the shutdown's notification and their wakers looked at each time),
//! for futures that had not moved. [`Gated`] hands the future a waker of
//! its own, and polls the future again only after that waker was woken.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// `F`, polled at its first poll, after it has woken its task, and after
/// [`Gated::get_mut`]; any other poll is `Pending` without a look at `F`.
pub struct Gated<F> {
    inner: F,
    flag: Arc<Flag>,
    /// The waker `F` is polled with, made once: a future that keeps its
    /// waker compares it and keeps it without a clone.
    waker: Waker,
}

/// Whether the future woke, and the task to wake when it does.
struct Flag {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Set before the task is woken: the poll that follows sees it.
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<F> Gated<F> {
    pub fn new(inner: F) -> Gated<F> {
        let flag = Arc::new(Flag {
            woken: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        let waker = Waker::from(flag.clone());
        Gated { inner, flag, waker }
    }

    /// The future, to change it (a timer set to another deadline): it is
    /// polled again at the next poll, which registers its waker anew.
    pub fn get_mut(&mut self) -> &mut F {
        self.flag.woken.store(true, Ordering::Relaxed);
        &mut self.inner
    }
}

impl<F: Future + Unpin> Future for Gated<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        // The task first, then the flag: a wake between the two is seen
        // in the flag, and one after them wakes the task registered.
        this.flag.task.register(cx.waker());
        if !this.flag.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let mut own = Context::from_waker(&this.waker);
        match Pin::new(&mut this.inner).poll(&mut own) {
            Poll::Ready(output) => {
                // Ready futures may be polled again (a fused one, or one
                // that was reset): the next poll looks.
                this.flag.woken.store(true, Ordering::Relaxed);
                Poll::Ready(output)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use super::*;

    /// A future that counts its polls and is ready once told.
    struct Counted {
        polls: Arc<AtomicUsize>,
        ready: Arc<AtomicBool>,
        waker: Kept,
    }

    impl Future for Counted {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.ready.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            *self.waker.lock().unwrap() = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    /// The waker a [`Counted`] was last polled with.
    type Kept = Arc<std::sync::Mutex<Option<Waker>>>;

    fn counted() -> (Counted, Arc<AtomicUsize>, Arc<AtomicBool>, Kept) {
        let polls = Arc::new(AtomicUsize::new(0));
        let ready = Arc::new(AtomicBool::new(false));
        let waker = Arc::new(std::sync::Mutex::new(None));
        let future = Counted {
            polls: polls.clone(),
            ready: ready.clone(),
            waker: waker.clone(),
        };
        (future, polls, ready, waker)
    }

    #[test]
    fn the_future_is_polled_first_and_then_only_after_it_woke() {
        let (future, polls, ready, waker) = counted();
        let mut gated = Gated::new(future);
        let task_woken = Arc::new(AtomicUsize::new(0));
        struct Task(Arc<AtomicUsize>);
        impl Wake for Task {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let task = Waker::from(Arc::new(Task(task_woken.clone())));
        let mut cx = Context::from_waker(&task);

        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        // The task runs again for something else: the future is not looked at.
        for _ in 0..5 {
            assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        // The future is ready and wakes its waker: the task is woken, and
        // the next poll looks.
        ready.store(true, Ordering::SeqCst);
        waker.lock().unwrap().take().unwrap().wake();
        assert_eq!(task_woken.load(Ordering::SeqCst), 1);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_ready());
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_changed_future_is_polled_again() {
        let (future, polls, _, _) = counted();
        let mut gated = Gated::new(future);
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        gated.get_mut();
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_gated_timer_fires_and_can_be_set_again() {
        let sleep = tokio::time::sleep(Duration::from_secs(5));
        tokio::pin!(sleep);
        let mut timer = Gated::new(sleep);
        let started = tokio::time::Instant::now();
        // Bounded: a timer never seen fails the test at a minute.
        let limit = Duration::from_secs(60);
        tokio::time::timeout(limit, &mut timer)
            .await
            .expect("the timer fired");
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        timer
            .get_mut()
            .as_mut()
            .reset(tokio::time::Instant::now() + Duration::from_secs(3));
        tokio::time::timeout(limit, &mut timer)
            .await
            .expect("the timer fired again");
        assert_eq!(started.elapsed(), Duration::from_secs(8));
    }

    #[tokio::test(start_paused = true)]
    async fn a_gated_timer_wins_a_select_against_a_busy_channel() {
        // A task woken again and again by its channel still sees the
        // timer when it fires.
        let (tx, mut rx) = tokio::sync::mpsc::channel::<u32>(8);
        tokio::spawn(async move {
            for i in 0.. {
                tokio::time::sleep(Duration::from_millis(10)).await;
                if tx.send(i).await.is_err() {
                    break;
                }
            }
        });
        let sleep = tokio::time::sleep(Duration::from_secs(1));
        tokio::pin!(sleep);
        let mut timer = Gated::new(sleep);
        let mut received = 0;
        let mut fired = false;
        // Bounded: a timer never seen would leave the loop at 200 frames.
        while received < 200 {
            tokio::select! {
                biased;
                Some(_) = rx.recv() => received += 1,
                () = &mut timer => {
                    fired = true;
                    break;
                }
            }
        }
        assert!(fired, "the timer was seen");
        assert!((95..=100).contains(&received), "{received} received");
    }
}
