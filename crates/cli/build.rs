//! Tell the tests which services they are given: the cluster tests run
//! when `BAGHCHAL_TEST_POSTGRES` and `BAGHCHAL_TEST_NATS` are set, the
//! crash test's PostgreSQL run when `BAGHCHAL_TEST_POSTGRES` is; without
//! them those tests are ignored, and show as such, rather than passing
//! without running.

fn given(name: &str) -> bool {
    println!("cargo:rerun-if-env-changed={name}");
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

fn main() {
    println!("cargo:rustc-check-cfg=cfg(test_postgres)");
    println!("cargo:rustc-check-cfg=cfg(test_cluster)");
    let postgres = given("BAGHCHAL_TEST_POSTGRES");
    let nats = given("BAGHCHAL_TEST_NATS");
    if postgres {
        println!("cargo:rustc-cfg=test_postgres");
    }
    if postgres && nats {
        println!("cargo:rustc-cfg=test_cluster");
    }
}
