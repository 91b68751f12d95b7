//! perft throughput in leaf nodes per second (the last ply counted in
//! bulk), from the start and from a movement-phase position.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use baghchal_rules::{perft, Position, Rules};

/// A movement-phase position with five empty points and the repetition
/// rule at work.
const MOVEMENT: &str = "TGG.T/G.GGG/GG.GG/GGG.G/T.GGT g 0 4 60";

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);

    let start = Position::default();
    let leaves = perft(&start, 6);
    group.throughput(Throughput::Elements(leaves));
    group.bench_function("start depth 6", |b| b.iter(|| perft(&start, 6)));

    let movement = Position::from_text(MOVEMENT, Rules::default()).expect("a valid position");
    let leaves = perft(&movement, 7);
    group.throughput(Throughput::Elements(leaves));
    group.bench_function("movement depth 7", |b| b.iter(|| perft(&movement, 7)));

    let chains = Position::new("multi-jump".parse().expect("valid rules"));
    let leaves = perft(&chains, 6);
    group.throughput(Throughput::Elements(leaves));
    group.bench_function("multi-jump start depth 6", |b| b.iter(|| perft(&chains, 6)));

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
