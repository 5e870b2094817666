#!/usr/bin/env bash
# Writes the outputs a behaviour-preserving change must leave byte-identical
# (timings and versions masked) into OUT_DIR: evaluate on the built-in example
# with and without the demo index, every NLIWOD and MQALD run under every
# profile, annotate --gold of QALD-9 train, index info and 1,000 sameas answers
# of an index built from ../shared/data/rdf. Compare two snapshots with
# `diff -r A B`.
#
#   bash scripts/behaviour-snapshot.sh QAJUDGE_BINARY OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
out="$2"
data=../shared/data
if [ ! -d "$data" ]; then
  echo "error: $data is missing: the snapshot reads the real benchmarks there" >&2
  exit 1
fi
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# timings and versions differ between builds and runs: mask them (an index's
# meta_sha256 hashes its built_at; a live system's measured latency)
mask() {
  sed -E \
    -e 's/"(version|built_by|meta_sha256)": *"[^"]*"/"\1": "*"/g' \
    -e 's/"(built_at|runtime_ms_mean|seconds|elapsed_ms|ms|load_ms|latency_ms)": *[0-9.e+-]+/"\1": 0/g' \
    -e 's/token=[0-9a-f]+/token=*/g' \
    -e "s|$work/|WORK/|g" \
    -e "s|127.0.0.1:[0-9]+|127.0.0.1:PORT|g" \
    -e 's/qajudge [0-9]+\.[0-9]+\.[0-9]+/qajudge *.*.*/g'
}

run() { # name, args...
  local name="$1"
  shift
  set +e
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  echo "exit $?" >"$out/$name.exit"
  set -e
  mask <"$work/stdout" >"$out/$name.out"
  mask <"$work/stderr" >"$out/$name.err"
}

demo=tests/data/demo
"$bin" index build --out "$work/demo-index" "$demo/kg.ttl" >/dev/null 2>&1
for fmt in json table csv; do
  run "demo-$fmt" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --run "$demo/cross-graph.json" --format "$fmt" --per-question --explain
  run "demo-index-$fmt" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --run "$demo/cross-graph.json" --index "$work/demo-index" --format "$fmt" --per-question --explain
done
for profile in judge gerbil mqald; do
  run "demo-index-$profile" evaluate --gold "$demo/gold.json" --run "$demo/example-system.json" \
    --index "$work/demo-index" --format json --profile "$profile" --explain
  for q in 8 9; do
    gold="$data/qald/$q/qald-$q-train-multilingual.json"
    for run_file in "$data"/systems/nliwod/qald$q/*.json; do
      run "nliwod-$(basename "$run_file" .json)-$profile" evaluate --gold "$gold" \
        --run "$run_file" --format json --profile "$profile" --explain --by form --by answertype
    done
  done
  for run_file in "$data"/mqald/out/*.json; do
    run "mqald-$(basename "$run_file" .json)-$profile" evaluate --gold "$data/mqald/MQALD.json" \
      --run "$run_file" --format json --profile "$profile" --explain --by tags
  done
done
run "annotate-qald9-train" annotate --gold "$data/qald/9/qald-9-train-multilingual.json"
run "check-qald9-train" check "$data/qald/9/qald-9-train-multilingual.json"

"$bin" index build --lenient --out "$work/rdf-index" "$data/rdf" >/dev/null 2>"$work/build.err" || true
run "index-info" index info "$work/rdf-index"
# 1,000 IRIs: the first ones of every N-Triples link file (subjects and objects)
iris="$work/iris.txt"
set +o pipefail
for f in $(find "$data/rdf" -name '*.nt.bz2' | sort); do
  bzcat "$f" 2>/dev/null | head -n 200 || true
done | grep -oE '<[^>]+>' | tr -d '<>' | grep -v 'www.w3.org' | awk '!seen[$0]++' | head -n 1000 >"$iris"
set -o pipefail
xargs -a "$iris" -d '\n' "$bin" sameas --index "$work/rdf-index" --limit 20 >"$out/sameas-1000.out" 2>"$out/sameas-1000.err" || echo "sameas failed" >>"$out/sameas-1000.err"
wc -l <"$iris" >"$out/sameas-iris.count"

# --help of every subcommand (clap texts are user-facing)
run "help" --help
for sub in evaluate annotate check index serve sameas labels types; do
  run "help-$sub" "$sub" --help
done
run "help-index-build" index build --help

# executing queries with an embedded knowledge graph
run "demo-kg" evaluate --gold "$demo/gold.json" --run "$demo/sparql-system.json" \
  --kg "$demo/kg.ttl" --format json --per-question --explain --refresh-gold --execute-run

# a live QA system on loopback (GERBIL QA's convention: form POST `query`), answering
# every question with the example system's answers for that text; and a dead port
cat >"$work/system.py" <<'PY'
import json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
run = json.load(open(sys.argv[1]))
by_text = {}
for q in run["questions"]:
    for t in q.get("question", []):
        by_text[t["string"]] = q
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        q = by_text.get(form.get("query", [""])[0])
        body = json.dumps({"questions": [q] if q else []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$work/system.py" "$demo/example-system.json" >"$work/system.port" &
system_pid=$!
trap 'kill $system_pid 2>/dev/null; rm -rf "$work"' EXIT
dead_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for _ in $(seq 50); do [ -s "$work/system.port" ] && break; sleep 0.1; done
system="http://127.0.0.1:$(cat "$work/system.port")/"
run "live" evaluate --gold "$demo/gold.json" --system-url "$system" --concurrency 1 --format json --per-question
run "live-dead" evaluate --gold "$demo/gold.json" --system-url "http://127.0.0.1:$dead_port/" --concurrency 1 --format json

# the server: the API document, lookups, errors, evaluations, an experiment
"$bin" serve --data "$work/store" --index "$work/demo-index" --kg "$demo/kg.ttl" \
  --benchmark demo="$demo/gold.json" --allow-system-host 127.0.0.1 --concurrency 1 --bind 127.0.0.1:0 \
  2>"$work/serve.err" &
serve_pid=$!
trap 'kill $serve_pid $system_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
base=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
api="$base/api/v1"
http() { # name, curl args...
  local name="$1"
  shift
  curl -s -o "$work/body" -w '%{http_code}\n' "$@" >"$out/http-$name.status" || echo "curl failed" >>"$out/http-$name.status"
  if jq -e . "$work/body" >/dev/null 2>&1; then
    jq -S . "$work/body" | mask | sed -E \
      -e 's/"(id|created|finished|token|uptime_s|since)": *("[^"]*"|[0-9]+)/"\1": "*"/g' \
      -e "s|$base|BASE|g" -e "s|127.0.0.1:[0-9]+|127.0.0.1:PORT|g" >"$out/http-$name.json"
  else
    mask <"$work/body" | sed -E "s|127.0.0.1:[0-9]+|127.0.0.1:PORT|g" >"$out/http-$name.body"
  fi
}
http openapi "$api/openapi.json"
http health "$api/health"
http sameas "$api/sameas?iri=http://dbpedia.org/resource/Barack_Obama"
http labels "$api/labels?text=Barack%20Obama"
http types "$api/types?iri=http://dbpedia.org/resource/Barack_Obama"
http benchmarks "$api/benchmarks"
http unknown "$api/nothing-here"
http bad-json -X POST -H 'Content-Type: application/json' --data '{"gold":' "$api/evaluate"
http no-gold -X POST -H 'Content-Type: application/json' --data '{"runs":[]}' "$api/evaluate"
http annotate -X POST -H 'Content-Type: application/json' \
  --data '{"sparql":"SELECT ?x WHERE { ?x <http://dbpedia.org/ontology/child> ?y } ORDER BY ?x"}' "$api/annotate"
jq -n --slurpfile run "$demo/example-system.json" \
  '{gold: "demo", runs: [{name: "example", document: $run[0]}], explain: true}' >"$work/eval.json"
http evaluate -X POST -H 'Content-Type: application/json' --data @"$work/eval.json" "$api/evaluate"
jq -n --slurpfile gold "$demo/gold.json" --slurpfile run "$demo/sparql-system.json" \
  '{gold: {name: "inline", document: $gold[0]}, runs: [{document: $run[0]}], refresh_gold: true, execute_run: true}' >"$work/eval-kg.json"
http evaluate-kg -X POST -H 'Content-Type: application/json' --data @"$work/eval-kg.json" "$api/evaluate"
http experiment -X POST -F benchmark=demo -F run=@"$demo/example-system.json" -F system_url="$system" \
  -F experiments=qa,c2kb "$api/experiments"
id=$(jq -r .id "$work/body")
token=$(jq -r .token "$work/body")
for _ in $(seq 100); do
  curl -s -H "X-Experiment-Token: $token" "$api/experiments/$id" | jq -e '.status == "done" or .status == "failed"' >/dev/null && break
  sleep 0.2
done
http experiment-done -H "X-Experiment-Token: $token" "$api/experiments/$id"
http experiment-dead -X POST -F benchmark=demo -F system_url="http://127.0.0.1:$dead_port/" "$api/experiments"
id=$(jq -r .id "$work/body")
token=$(jq -r .token "$work/body")
for _ in $(seq 100); do
  curl -s -H "X-Experiment-Token: $token" "$api/experiments/$id" | jq -e '.status == "done" or .status == "failed"' >/dev/null && break
  sleep 0.2
done
http experiment-dead-done -H "X-Experiment-Token: $token" "$api/experiments/$id"
http page "$base/"
http sparql -G --data-urlencode 'query=SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' -H 'Accept: application/sparql-results+json' "$base/sparql"
