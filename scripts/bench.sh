#!/usr/bin/env bash
# Performance benchmarks (criterion). Quote ratios against the serde_json baseline
# measured in the same run: the machine is shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench evaluate --bench annotate "$@"
