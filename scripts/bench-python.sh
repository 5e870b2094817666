#!/usr/bin/env bash
# The Python package against the binary (docs/benchmarks.md, "The Python
# package"): `qajudge.evaluate` of the 5 NLIWOD QALD-9 runs (every
# sub-experiment), its report serialised as JSON, against `qajudge evaluate
# ... --format json` of the binary, the two alternated ROUNDS times (default 5)
# in one run on this machine; prints each time, the medians and their ratio.
# PROFILE=release (default) builds both in the release profile (RocksDB
# included the first time); PROFILE=dev uses the debug artifacts of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
profile="${PROFILE:-release}"
rounds="${1:-5}"
data="../shared/data"
[ -d "$data/systems/nliwod/qald9" ] || { echo "error: $data/systems/nliwod/qald9 is missing: the benchmark reads the NLIWOD runs of the shared data" >&2; exit 1; }
maturin_version="1.16.0"
tools="$target/venv-maturin"
venv="$target/venv-bench-python"
wheels="$target/wheels-bench"
if ! { [ -x "$tools/bin/maturin" ] && "$tools/bin/maturin" --version 2>/dev/null | grep -q "$maturin_version"; }; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check "maturin==$maturin_version"
fi
cargo build --profile "$profile" --bin qajudge >&2
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
binary="$target/$dir/qajudge"
rm -rf "$wheels"
"$tools/bin/maturin" build --profile "$profile" --compatibility linux --interpreter python3 --out "$wheels" >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$(ls "$wheels"/qajudge-*.whl)"
"$venv/bin/python" - "$binary" "$data" "$rounds" "$profile" <<'PY'
import glob, statistics, subprocess, sys, time
import qajudge

binary, data, rounds, profile = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
gold = f"{data}/qald/9/qald-9-train-multilingual.json"
runs = sorted(glob.glob(f"{data}/systems/nliwod/qald9/*.json"))
assert len(runs) == 5, runs
cli = [binary, "evaluate", "--gold", gold, *[a for r in runs for a in ("--run", r)], "--format", "json"]
subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)  # warm the page cache
times = {"binary": [], "python": []}
for _ in range(rounds):
    t = time.perf_counter()
    subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)
    times["binary"].append(time.perf_counter() - t)
    t = time.perf_counter()
    text = qajudge.evaluate(gold, runs).to_json()
    times["python"].append(time.perf_counter() - t)
assert len(text) > 1000
for name, ts in times.items():
    print(f"{name}: " + " ".join(f"{x:.3f}" for x in ts) + f" s; median {statistics.median(ts):.3f} s")
ratio = statistics.median(times["python"]) / statistics.median(times["binary"])
print(f"profile {profile}, 5 NLIWOD QALD-9 runs, every sub-experiment: python / binary = {ratio:.3f}")
PY
