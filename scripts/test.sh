#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test target
# (unit tests, the integration binary with its real servers: oxigraph, Virtuoso,
# Chromium, the benches once each in test mode, the Python package's pytest
# suites in the venv scripts/python-wheel.sh makes) after checking the licences
# of the binary's crates (scripts/licences.sh), the house's shape (house.py,
# layers.py) and that the examples build.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install the Rust toolchain (rustup, Rust 1.89 or newer) and run this again" >&2
  exit 1
fi
bash scripts/install-deps.sh --browser --python --virtuoso --recipes --java --latex --wordnet
bash scripts/install-servers.sh
# the licence policy of the binary (deny.toml): a copyleft crate fails here, named
bash scripts/licences.sh
bash scripts/actionlint.sh
# the house checks itself: no circle between the files of a directory of src/,
# and every module uses only what its row of ARCHITECTURE.md's layers table
# lists (no stale rows), external crates only where it places them
python3 scripts/house.py --quiet
python3 scripts/layers.py
if [ ! -d ../shared/data ]; then
  echo "note: ../shared/data is missing: tests that read real benchmarks skip (they fail under CI=true)" >&2
fi

cargo build --examples
# the Python package: its wheel (dev profile, this build directory) in a fresh
# venv, where tests/integration/python_*.rs run its pytest suites
bash scripts/python-wheel.sh
cargo test --lib --tests --benches
# the memory maps of an index's files (mapped/, its own crate for its unsafe)
cargo test -p qajudge-mapped
