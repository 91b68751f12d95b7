//! Rebuild when a file of the page changes: the page is embedded.

fn main() {
    println!("cargo:rerun-if-changed=../../static");
}
