//! perft throughput in leaf nodes per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use baghchal_rules::{perft, Position, Rules};

fn bench(c: &mut Criterion) {
    let start = Position::default();
    let movement = Position::from_text("TGGGT/GGGGG/GG.GG/GGGGG/TGGGT t 0 0 39", Rules::default());
    let mut group = c.benchmark_group("perft");
    let depth = 5;
    group.throughput(Throughput::Elements(perft(&start, depth)));
    group.bench_function("start depth 5", |b| b.iter(|| perft(&start, depth)));
    if let Ok(movement) = movement {
        let n = perft(&movement, 6);
        group.throughput(Throughput::Elements(n));
        group.bench_function("movement depth 6", |b| b.iter(|| perft(&movement, 6)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
