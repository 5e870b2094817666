#!/usr/bin/env bash
# Load test of `qajudge serve` with wrk (Debian's package): GET /api/v1/sameas
# with varied IRIs (half known to the index, half unknown), batch POST
# /api/v1/sameas of 1,000 IRIs (half known; IRIs per second = requests per
# second × 1,000) and POST /api/v1/match,
# against an index of N million statements (default 20; built by
# scripts/bench-index.sh when missing). Prints requests per second and latency
# percentiles (p50, p90, p99). Usage: bash scripts/load-test.sh [MILLIONS] [SECONDS]
# QAJUDGE_BIN and QAJUDGE_INDEX serve another binary and index (a previous
# release on the index it built: the baseline of docs/benchmarks.md, in the
# same session).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
millions="${1:-20}"
seconds="${2:-20}"
target="${CARGO_TARGET_DIR:-target}"
work="$target/bench-index"
index="${QAJUDGE_INDEX:-$work/idx-${millions}m}"
[ -d "$index" ] || bash scripts/bench-index.sh "$millions"
bin="${QAJUDGE_BIN:-}"
if [ -z "$bin" ]; then
  cargo build --release --bin qajudge
  bin="$target/release/qajudge"
fi
echo "== $("$bin" --version) serving $index"
data="$(mktemp -d)"
"$bin" serve --index "$index" --data "$data/store" --bind 127.0.0.1:18080 2> "$data/server.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening" "$data/server.log" && break
  sleep 0.2
done
cat > "$data/sameas.lua" <<'LUA'
-- varied IRIs in the shapes examples/gen_dump.rs writes: even requests known,
-- odd ones unknown
counter = 0
request = function()
  counter = counter + 1
  local iri
  if counter % 2 == 0 then
    iri = "http%3A%2F%2Fwww.wikidata.org%2Fentity%2FQ" .. ((counter % 100000) * 7 + 3)
  else
    iri = "http%3A%2F%2Fexample.org%2Fnone%2F" .. counter
  end
  return wrk.format("GET", "/api/v1/sameas?limit=10&iri=" .. iri)
end
LUA
cat > "$data/match.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[{"gold": [{"type":"uri","value":"http://dbpedia.org/resource/Barack_Obama"},
  {"type":"uri","value":"http://dbpedia.org/resource/Honolulu"},
  {"type":"literal","value":"1961-08-04","datatype":"http://www.w3.org/2001/XMLSchema#date"}],
 "run": [{"type":"uri","value":"http://www.wikidata.org/entity/Q76"},
  {"type":"literal","value":"Honolulu"},
  {"type":"literal","value":"1961-08-04T00:00:00Z"},
  {"type":"uri","value":"http://dbpedia.org/resource/Paris"}]}]]
LUA
echo "== GET /api/v1/sameas ($millions M statements, ${seconds}s, 2 threads, 64 connections)"
wrk -t2 -c64 -d"${seconds}s" --latency -s "$data/sameas.lua" http://127.0.0.1:18080
# a batch of 1,000 IRIs in the same shapes, half known
python3 - "$data/batch.lua" <<'PY'
import json, sys
iris = [f"http://www.wikidata.org/entity/Q{e * 7 + 3}" if e % 2 == 0 else f"http://example.org/none/{e}"
        for e in range(1, 1001)]
body = json.dumps({"iris": iris, "limit": 10})
with open(sys.argv[1], "w") as f:
    f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    f.write("wrk.body = " + json.dumps(body) + "\n")
PY
echo "== POST /api/v1/sameas, 1,000 IRIs a request"
wrk -t2 -c8 -d"${seconds}s" --latency -s "$data/batch.lua" http://127.0.0.1:18080/api/v1/sameas
echo "== POST /api/v1/match"
wrk -t2 -c64 -d"${seconds}s" --latency -s "$data/match.lua" http://127.0.0.1:18080/api/v1/match
echo "== baseline: GET /api/v1/health"
wrk -t2 -c64 -d"${seconds}s" --latency http://127.0.0.1:18080/api/v1/health
