#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test target
# (unit tests, the integration binary, the benches once each in test mode) after
# checking that the examples build.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install the Rust toolchain (rustup, Rust 1.80 or newer) and run this again" >&2
  exit 1
fi
if ! command -v cc >/dev/null 2>&1; then
  # mimalloc is C code compiled by the cc crate
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq build-essential >/dev/null
  else
    echo "error: no C compiler (cc) found; install gcc or clang and run this again" >&2
    exit 1
  fi
fi
if [ ! -d ../shared/data ]; then
  echo "note: ../shared/data is missing: tests that read real benchmarks skip (they fail under CI=true)" >&2
fi

cargo build --examples
cargo test --lib --tests --benches
