#!/usr/bin/env bash
# The Python package against the binary (docs/benchmarks.md, "The Python
# package"): `qajudge.evaluate` of the 5 NLIWOD QALD-9 runs (every
# sub-experiment), its report serialised as JSON, against `qajudge evaluate
# ... --format json` of the binary, the two alternated ROUNDS times (default 5)
# in one run on this machine; prints each time, the medians, their ratio and the
# median of the per-round ratios. Then the answer-set P/R/F1 of the nine CK25
# team files of T2S-Metrics' dataset, both queries executed on the CK25 graph:
# `qajudge.evaluate` (judge profile) against `t2s run -m answerset_precision
# answerset_recall answerset_f1` of t2s-metrics 1.2.0 (PyPI, Python >= 3.12,
# in a venv under the build directory), T2S_ROUNDS times (default 1: it takes
# minutes), printing the ratio of their medians.
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
paired = statistics.median(p / b for p, b in zip(times["python"], times["binary"]))
print(f"profile {profile}, 5 NLIWOD QALD-9 runs, every sub-experiment: python / binary = {ratio:.3f} (median of the per-round ratios {paired:.3f})")
PY
[ -d "$data/text2sparql/t2s-metrics/ck25" ] || { echo "error: $data/text2sparql/t2s-metrics/ck25 is missing: the comparison with t2s-metrics reads its CK25 files" >&2; exit 1; }
python312="${PYTHON312:-$(command -v python3.12 || ls /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)}"
[ -n "$python312" ] || { echo "error: t2s-metrics needs Python 3.12 or newer: install python3.12 or set PYTHON312" >&2; exit 1; }
t2s_venv="$target/venv-t2s"
if ! "$t2s_venv/bin/python" -c 'import importlib.metadata as m; assert m.version("t2s-metrics") == "1.2.0"' 2>/dev/null; then
  "$python312" -m venv "$t2s_venv"
  "$t2s_venv/bin/pip" install -q --disable-pip-version-check "t2s-metrics==1.2.0"
fi
work=$(mktemp -d)
data=$(cd "$data" && pwd)
trap 'rm -rf "$work"' EXIT
# its CLI wants one graph file and the (unused) QCan jar's path to exist
cat "$data/text2sparql/kg/prod-inst.ttl" "$data/text2sparql/kg/prod-vocab.ttl" > "$work/ck25.ttl"
mkdir -p "$work/third_party_lib" && : > "$work/third_party_lib/qcan-1.1-jar-with-dependencies.jar"
"$venv/bin/python" - "$data" "$work" "$t2s_venv/bin/t2s" "${T2S_ROUNDS:-1}" <<'PY'
import glob, os, statistics, subprocess, sys, time
import qajudge

data, work, t2s, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ck25 = f"{data}/text2sparql/t2s-metrics/ck25"
runs = sorted(glob.glob(f"{ck25}/*.jsonl"))
kg = [f"{data}/text2sparql/kg/prod-inst.ttl", f"{data}/text2sparql/kg/prod-vocab.ttl"]
assert len(runs) == 9, runs
times = {"qajudge": [], "t2s-metrics": []}
for i in range(rounds):
    t = time.perf_counter()
    report = qajudge.evaluate(runs=runs, kg=kg, experiments="qa")
    times["qajudge"].append(time.perf_counter() - t)
    t = time.perf_counter()
    subprocess.run([t2s, "run", "-d", "ck25", "-j", ck25, "--eg", f"{work}/ck25.ttl", "--eq",
                    "--ep", f"{work}/out{i}", "-m", "answerset_precision", "answerset_recall",
                    "answerset_f1"], cwd=work, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    times["t2s-metrics"].append(time.perf_counter() - t)
assert len(report.runs) == 9
for name, ts in times.items():
    print(f"{name}: " + " ".join(f"{x:.3f}" for x in ts) + f" s; median {statistics.median(ts):.3f} s")
ratio = statistics.median(times["t2s-metrics"]) / statistics.median(times["qajudge"])
print(f"nine CK25 team files, answer-set P/R/F1 with both queries executed: t2s-metrics / qajudge.evaluate = {ratio:.1f}")
PY
