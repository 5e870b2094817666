//! Where unit tests find the shared real data (`../shared/data`): a folder or file
//! of it, or `None` when the data is missing outside CI (under `CI=true` a missing folder
//! fails the test, saying so).

use std::path::PathBuf;

/// The folder or file `../shared/data/<sub>` ("" for the data itself), or `None`
/// (skip) when it is missing and this is not CI.
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(sub);
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "{} is missing: CI runs the tests with the shared real data",
        dir.display()
    );
    None
}
