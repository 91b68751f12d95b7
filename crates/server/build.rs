//! Rebuild when a file of the page or a migration changes (both are
//! embedded), and
//! tell the tests whether a PostgreSQL server is given to them: without
//! `BAGHCHAL_TEST_POSTGRES` their PostgreSQL variants are ignored, and
//! show as such, rather than passing without running.

fn main() {
    println!("cargo:rerun-if-changed=../../static");
    // `sqlx::migrate!` embeds the migrations, and cannot tell cargo so.
    println!("cargo:rerun-if-changed=../../migrations");
    println!("cargo:rerun-if-env-changed=BAGHCHAL_TEST_POSTGRES");
    println!("cargo:rustc-check-cfg=cfg(test_postgres)");
    if std::env::var_os("BAGHCHAL_TEST_POSTGRES").is_some_and(|v| !v.is_empty()) {
        println!("cargo:rustc-cfg=test_postgres");
    }
}
