#!/usr/bin/env bash
# The backend's figures (issue 21): POST /api/v1/evaluate of a QALD-9 train run
# (408 questions) with an index of N million statements (default 20), first
# call and repeated calls (the prepared gold reused), against the CLI's
# evaluate path in-process (parsing included); and batch POST /api/v1/sameas of
# 10,000 IRIs per call, IRIs/s against in-process lookups. Both measured in this
# run, on this machine. Needs ../shared/data. Usage:
#   bash scripts/bench-api.sh [MILLIONS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/install-servers.sh
millions="${1:-20}"
rounds="${2:-15}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-index"
mkdir -p "$work"
data_dir=../shared/data
gold="$data_dir/qald/9/qald-9-train-multilingual.json"
run="$data_dir/systems/nliwod/qald9/GANSWER2_QALD9_Train.json"
[ -f "$gold" ] && [ -f "$run" ] || { echo "error: $gold or $run is missing (../shared/data)" >&2; exit 1; }
cargo build --release --bin qajudge --example gen_dump --example bench_api_baseline
dump="$work/synthetic-${millions}m.nt"
index="$work/idx-${millions}m"
[ -f "$dump" ] || "$target/release/examples/gen_dump" "$dump" "$millions"
[ -d "$index" ] || "$target/release/qajudge" index build --out "$index" "$dump"

echo "== in process (the CLI's evaluate path, $rounds rounds; 10,000 sameas lookups)"
baseline=$("$target/release/examples/bench_api_baseline" "$index" "$gold" "$run" "$rounds")
echo "$baseline"

data="$(mktemp -d)"
"$target/release/qajudge" serve --index "$index" --data "$data/store" --bind 127.0.0.1:0 \
  --benchmark "qald9train=$gold" --max-body-bytes 268435456 2> "$data/server.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
url=""
for _ in $(seq 1 300); do
  url=$(grep -o "http://127.0.0.1:[0-9]*" "$data/server.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { cat "$data/server.log" >&2; exit 1; }

echo "== over HTTP ($url)"
"$target/venv-client/bin/python" - "$url" "$run" "$rounds" "$baseline" <<'PY'
import json, sys, time, urllib.request
url, run, rounds, baseline = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])

def post(path, body):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        out = r.read()
    return (time.perf_counter() - t) * 1000.0, out

with open(run, encoding="utf-8") as f:
    doc = json.load(f)
body = {"gold": "qald9train", "runs": [{"name": "GANSWER2", "document": doc}], "explain": True}
first, _ = post("/api/v1/evaluate", body)
repeats = sorted(post("/api/v1/evaluate", body)[0] for _ in range(rounds))
median = repeats[len(repeats) // 2]
base = baseline["evaluate_ms_median"]
print(f"POST /evaluate first call {first:.1f} ms = {first / base:.2f}x in-process ({base:.1f} ms median)")
print(f"POST /evaluate repeated (prepared gold reused) median {median:.1f} ms = {median / base:.2f}x in-process")

iris = [f"http://www.wikidata.org/entity/Q{i * 7 + 3}" for i in range(10_000, 20_000)]
ms, out = post("/api/v1/sameas", {"iris": iris})
assert len(json.loads(out)) == 10_000
uncached = 10_000 / (ms / 1000)
again = sorted(post("/api/v1/sameas", {"iris": iris})[0] for _ in range(5))[2]
cached = 10_000 / (again / 1000)
print(f"batch sameas, 10,000 IRIs per call: {uncached:,.0f} IRIs/s unseen = {uncached / baseline['sameas_per_s_uncached']:.2f}x in-process unseen ({baseline['sameas_per_s_uncached']:,.0f}/s); "
      f"{cached:,.0f} IRIs/s seen again = {cached / baseline['sameas_per_s_cached']:.2f}x in-process cached ({baseline['sameas_per_s_cached']:,.0f}/s)")
PY
