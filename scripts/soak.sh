#!/usr/bin/env bash
# Soak of `qajudge serve` (not a test): mixed routes on loopback for MINUTES
# (default 10) in rounds of 30 s with wrk, 2 threads and 16 connections:
# GET /sameas, POST /sameas (batch), GET /labels, GET /types, POST /match,
# POST /canonical, POST /annotate, POST /evaluate (the demo benchmark), GET
# /health, GET /benchmarks, GET /benchmarks/demo/audit (executed on the
# server's graph once, before the rounds; then the kept report), with the index of N million statements (default 20;
# scripts/bench-index.sh builds it when missing). After each round come the
# hostile requests (curl): queries nested 1,000 and 100,000 levels deep and a
# chain 100,000 long on /annotate, /sparql and as a run query executed on the
# server's graph (/evaluate with execute_run), and a TEXT2SPARQL YAML nested
# 110,000 levels; each must get its 400 (or, as a run query, a 200 whose report
# names the question's diagnostic); golds that expand, two at once (a YAML of
# 1,200 aliases of an 800 KB question, a QAWiki dump whose 5,000 questions
# share one statement) and the YAML uploaded to /sample, each a 400 within 11
# s; T2S-Metrics cases whose generated query is 160 KB of `<` or 60,000
# variables (text measures that were quadratic), a 200 within 11 s. Then the bounds of docs/http-api.md's
# query limits: a 546-byte query of nested CONCATs asking 4.6 GB and a
# GROUP_CONCAT over rows of large strings (413), 1,000 triple patterns in one
# group and 8,000 joined variables (400, each answered within the /sparql
# deadline and a second), and a sample of an uploaded benchmark of 20,000
# questions (200); the fourth pass's 50 MB upload of 3 M questions (413), a
# result set of 90,000 ordered ids (200), and an audit whose client leaves
# after a second. After each round it reads the server's
# resident memory (VmRSS). Fails when any mixed
# response was not 2xx, a hostile one got another answer, any socket error
# happened, the server died, or the highest RSS of the second half of the
# rounds is more than 10 % above that of the first half (a query may hold up
# to --max-query-memory-mb, and the allocator returns pages when it will: the
# highest readings, not single ones, tell a leak).
# Usage: bash scripts/soak.sh [MINUTES] [MILLIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
minutes="${1:-10}"
millions="${2:-20}"
round=30
rounds=$(( minutes * 60 / round ))
[ "$rounds" -ge 2 ] || { echo "error: $minutes minutes is too short; give at least 1" >&2; exit 2; }
target="${CARGO_TARGET_DIR:-target}"
index="$target/bench-index/idx-${millions}m"
[ -d "$index" ] || bash scripts/bench-index.sh "$millions"
cargo build --release --bin qajudge
data="$(mktemp -d)"
"$target/release/qajudge" serve --index "$index" --data "$data/store" --bind 127.0.0.1:0 \
  --workers 2 --max-evaluations 64 --benchmark "demo=tests/data/demo/gold.json" \
  --kg tests/data/demo/kg.ttl tests/data/demo/facts.ttl 2> "$data/server.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
url=""
for _ in $(seq 1 300); do
  url=$(grep -o "http://127.0.0.1:[0-9]*" "$data/server.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { cat "$data/server.log" >&2; exit 1; }
run_doc=$(cat tests/data/demo/example-system.json)
cat > "$data/mixed.lua" <<LUA
-- one request in twenty of each kind, by a counter per thread
local n = 0
local json = "application/json"
local run = [==[$run_doc]==]
local function q(i) return "http%3A%2F%2Fwww.wikidata.org%2Fentity%2FQ" .. ((i % 100000) * 7 + 3) end
local batch = {}
for i = 1, 100 do batch[#batch + 1] = '"http://www.wikidata.org/entity/Q' .. (i * 7 + 3) .. '"' end
local batch_body = '{"iris": [' .. table.concat(batch, ",") .. ']}'
request = function()
  n = n + 1
  local k = n % 20
  local post = function(path, body)
    return wrk.format("POST", path, {["Content-Type"] = json}, body)
  end
  if k < 8 then return wrk.format("GET", "/api/v1/sameas?limit=10&iri=" .. q(n))
  elseif k < 10 then return wrk.format("GET", "/api/v1/sameas?iri=http%3A%2F%2Fexample.org%2Fnone%2F" .. n)
  elseif k == 10 then return post("/api/v1/sameas", batch_body)
  elseif k == 11 then return wrk.format("GET", "/api/v1/labels?text=thing%20" .. (n % 1000))
  elseif k == 12 then return wrk.format("GET", "/api/v1/types?iri=" .. q(n))
  elseif k == 13 then return post("/api/v1/match", '{"gold": [{"type":"uri","value":"http://www.wikidata.org/entity/Q10"}, {"type":"literal","value":"1961-08-04","datatype":"http://www.w3.org/2001/XMLSchema#date"}], "run": [{"type":"uri","value":"http://www.wikidata.org/entity/Q10"}, {"type":"literal","value":"1961-08-04T00:00:00Z"}]}')
  elseif k == 14 then return post("/api/v1/canonical", '{"iris": ["https://en.wikipedia.org/wiki/Douglas_Adams", "http://dbpedia.org/resource/Caf%C3%A9_' .. n .. '"]}')
  elseif k == 15 then return post("/api/v1/annotate", '{"sparql": "SELECT ?x WHERE { ?x <http://dbpedia.org/ontology/birthPlace> <http://dbpedia.org/resource/Q' .. n .. '> } LIMIT 5"}')
  elseif k == 16 then return post("/api/v1/evaluate", '{"gold": "demo", "runs": [{"name": "r' .. n .. '", "document": ' .. run .. '}]}')
  elseif k == 17 then return wrk.format("GET", "/api/v1/benchmarks")
  elseif k == 18 then return wrk.format("GET", "/api/v1/benchmarks/demo/audit")
  else return wrk.format("GET", "/api/v1/health") end
end
LUA
# the hostile bodies, written once: NAME.annotate, NAME.sparql, NAME.evaluate, yaml.evaluate
python3 - "$data" <<'PY'
import json, sys
out = sys.argv[1]
bombs = {
    "parens-1000": "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * 1000 + "1" + ")" * 1000 + ") }",
    "parens-100k": "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * 100000 + "1" + ")" * 100000 + ") }",
    "chain-100k": "SELECT * WHERE { ?s ?p ?o FILTER(" + "1+" * 99999 + "1) }",
}
for name, q in bombs.items():
    open(f"{out}/{name}.annotate", "w").write(json.dumps({"sparql": q}))
    open(f"{out}/{name}.sparql", "w").write(q)
    run = {"questions": [{"id": "1", "question": [{"language": "en", "string": "q"}], "query": {"sparql": q}}]}
    open(f"{out}/{name}.evaluate", "w").write(json.dumps({"gold": "demo", "runs": [{"name": name, "document": run}], "execute_run": True}))
# the query limits: strings past the memory cap, too many patterns or variables
concat = 'SELECT (STRLEN(?h) AS ?l) WHERE { BIND("' + "a" * 68 + '" AS ?a)'
prev = "a"
for var, n in [("b", 16), ("c", 16), ("d", 16), ("e", 16), ("f", 16), ("g", 8), ("h", 8)]:
    concat += " BIND(CONCAT(" + ",".join([f"?{prev}"] * n) + f") AS ?{var})"
    prev = var
concat += " }"
# 100 rows of a 4.5 MB string: 445 MB of GROUP_CONCAT, past the default cap of 256 MB
group = ('SELECT (STRLEN(GROUP_CONCAT(?e)) AS ?l) WHERE { VALUES ?x { ' + " ".join(str(i) for i in range(100))
         + ' } BIND("' + "a" * 68 + '" AS ?a) BIND(CONCAT(' + ",".join(["?a"] * 16) + ') AS ?b) BIND(CONCAT('
         + ",".join(["?b"] * 16) + ') AS ?c) BIND(CONCAT(' + ",".join(["?c"] * 16) + ') AS ?d) BIND(CONCAT('
         + ",".join(["?d"] * 16) + ') AS ?e) }')
patterns = "SELECT * WHERE { ?s " + "".join(f"<http://x/p> ?o{i} ; " for i in range(1000)) + "<http://x/p> ?last }"
variables = "SELECT * WHERE { " + "".join(f"?s{i} <http://x/p> ?o{i} . " for i in range(4000)) + "}"
for name, q in {"concat": concat, "group": group, "patterns": patterns, "variables": variables}.items():
    open(f"{out}/{name}.sparql", "w").write(q)
questions = [{"id": str(i), "question": [{"language": "en", "string": f"Which river flows through the city number {i}?"}],
              "query": {"sparql": f"SELECT ?r WHERE {{ ?r <http://dbpedia.org/ontology/city> <http://dbpedia.org/resource/C{i}> }}"}}
             for i in range(20000)]
open(f"{out}/sample.json", "w").write(json.dumps({"gold": {"questions": questions}, "features": ["words", "triple_patterns"], "size": 10, "method": "kmeans++", "trials": 1}))
yaml = "questions: " + "[" * 110000 + "]" * 110000 + "\n"
open(f"{out}/yaml.evaluate", "w").write(json.dumps({"gold": {"name": "bomb.yaml", "text": yaml}, "runs": [{"text": "{}"}]}))
# what expands: 1,200 YAML aliases of an 800 KB question (1 GB), and a QAWiki
# dump whose 5,000 questions share a statement of 8,000 qualifiers (4.6 GB of flags)
laughs = 'dataset: {id: "https://e.org/ds/", prefix: x}\n'
laughs += 'one: &q {id: 1, question: {en: "%s"}, query: {sparql: "ASK {}"}}\n' % ("a" * 800000)
laughs += "questions: [" + ", ".join(["*q"] * 1200) + "]\n"
open(f"{out}/laughs.evaluate", "w").write(json.dumps({"gold": {"name": "laughs.yaml", "text": laughs}, "runs": [{"text": "{}"}]}))
open(f"{out}/laughs.sample", "w").write(json.dumps({"gold": laughs, "features": ["words"], "size": 1}))
ttl = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", "@prefix wd: <https://qawiki.org/entity/> .",
       "@prefix wdt: <https://qawiki.org/prop/direct/> .", "@prefix p: <https://qawiki.org/prop/> .",
       "@prefix ps: <https://qawiki.org/prop/statement/> .", "@prefix pq: <https://qawiki.org/prop/qualifier/> .",
       "@prefix s: <https://qawiki.org/entity/statement/> .", 'wd:Q1 rdfs:label "question"@en .']
ttl += ['wd:Q%d wdt:P1 wd:Q1 ; rdfs:label "q%d"@en ; p:P11 s:big .' % (i + 100, i) for i in range(5000)]
ttl.append('s:big ps:P11 "ASK {}" ;\n pq:P13 ' + ", ".join('"v%d"' % i for i in range(8000)) + " .")
open(f"{out}/qawiki.evaluate", "w").write(json.dumps({"gold": {"name": "shared.ttl", "text": "\n".join(ttl) + "\n"}, "runs": [{"text": "{}"}]}))
# the fourth pass: 3 M questions of `{"id": "N"}` in one 50 MB upload (past
# the 200,000 questions a request may hold: 413, never an abort), and a result
# set of 90,000 ids with an `order_required` list of them all (read in one pass;
# 100,000 would pass the request's question cap, counted once per run and gold)
with open(f"{out}/many.evaluate", "w") as f:
    f.write('{"gold": {"name": "many.json", "document": {"questions": [')
    f.write(",".join('{"id":"%d"}' % i for i in range(3000000)))
    f.write(']}}, "runs": [{"text": "{}"}]}')
ids = ["x:%d-en" % i for i in range(90000)]
result_set = {i: {"http://e.org/a": 1} for i in ids}
result_set["order_required"] = ids[::-1]
one = {"x:1-en": {"http://e.org/a": 1}}
open(f"{out}/ordered.evaluate", "w").write(json.dumps({"gold": {"name": "rs.json", "document": result_set}, "runs": [{"name": "one.json", "document": one}], "profile": "text2sparql"}))
# text measures that were quadratic: a generated query of 160 KB of `<`, and one of 60,000 variables
for name, generated in {"lt": "<" * 160000, "vars": "SELECT " + " ".join("?v%d" % i for i in range(60000)) + " WHERE { ?s ?p ?o }"}.items():
    case = json.dumps({"id": "1", "golden": "SELECT ?x WHERE { ?x ?p ?o }", "generated": generated, "order_matters": False})
    open(f"{out}/{name}.evaluate", "w").write(json.dumps({"gold": {"name": "cases.jsonl", "text": case}, "runs": [{"text": case}], "profile": "t2s-metrics", "timeout_ms": 10000}))
PY
# sends FILE to PATH with TYPE and checks the status is WANT (and, for 200, that
# the report names the question's diagnostic)
hostile() {
  local path=$1 type=$2 file=$3 want=$4 code
  code=$(curl -s -o "$data/hostile.out" -w '%{http_code}' -H "Content-Type: $type" --data-binary "@$file" "$url$path")
  if [ "$code" != "$want" ] || { [ "$want" = 200 ] && ! grep -q "too large to read" "$data/hostile.out"; }; then
    echo "error: $path with $(basename "$file") answered $code, not $want: $(head -c 300 "$data/hostile.out")" >&2
    exit 1
  fi
}
# sends FILE to PATH with TYPE, checks the status is WANT and that the answer
# came within the /sparql deadline (10 s) and a second
timed() {
  local path=$1 type=$2 file=$3 want=$4 code took out
  out="$data/hostile.$(basename "$file").out"
  read -r code took < <(curl -s -o "$out" -w '%{http_code} %{time_total}\n' -H "Content-Type: $type" --data-binary "@$file" "$url$path")
  if [ "$code" != "$want" ] || awk -v t="$took" 'BEGIN {exit !(t > 11)}'; then
    echo "error: $path with $(basename "$file") answered $code in $took s, not $want within 11 s: $(head -c 300 "$out")" >&2
    exit 1
  fi
}
hostile_round() {
  for name in parens-1000 parens-100k chain-100k; do
    hostile /api/v1/annotate application/json "$data/$name.annotate" 400
    hostile /sparql application/sparql-query "$data/$name.sparql" 400
    hostile /api/v1/evaluate application/json "$data/$name.evaluate" 200
  done
  hostile /api/v1/evaluate application/json "$data/yaml.evaluate" 400
  # two expanding golds at once (two together aborted the server before)
  timed /api/v1/evaluate application/json "$data/laughs.evaluate" 400 &
  local other=$!
  timed /api/v1/evaluate application/json "$data/qawiki.evaluate" 400
  wait "$other" || exit 1
  timed /api/v1/sample application/json "$data/laughs.sample" 400
  timed /api/v1/evaluate application/json "$data/lt.evaluate" 200
  timed /api/v1/evaluate application/json "$data/vars.evaluate" 200
  for name in concat group; do
    timed /sparql application/sparql-query "$data/$name.sparql" 413
  done
  for name in patterns variables; do
    timed /sparql application/sparql-query "$data/$name.sparql" 400
  done
  timed /api/v1/sample application/json "$data/sample.json" 200
  timed /api/v1/evaluate application/json "$data/many.evaluate" 413
  timed /api/v1/evaluate application/json "$data/ordered.evaluate" 200
  # an audit of ten minutes whose client leaves after a second: it stops
  # (a repeat the rounds have not asked, so that it is computed, not kept)
  curl -s -o /dev/null --max-time 1 "$url/api/v1/benchmarks/demo/audit?repeat=$(( i % 4 + 2 ))&timeout_ms=600000" || true
  curl -sf "$url/api/v1/health" >/dev/null || { echo "error: /health fails after the hostile requests" >&2; exit 1; }
}
rss() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
echo "== soak of $url: $rounds rounds of ${round}s, mixed routes, index of ${millions} M statements"
# the demo's audit computed once: the rounds ask for the kept report (more
# first computations at once than the route's two places would be 503 busy)
curl -sf "$url/api/v1/benchmarks/demo/audit" >/dev/null || { echo "error: GET /benchmarks/demo/audit fails" >&2; exit 1; }
first=0
second=0
total=0
for i in $(seq 1 "$rounds"); do
  out=$(wrk -t2 -c16 -d"${round}s" -s "$data/mixed.lua" "$url")
  kill -0 "$server" 2>/dev/null || { echo "error: the server died in round $i" >&2; tail "$data/server.log" >&2; exit 1; }
  hostile_round
  kill -0 "$server" 2>/dev/null || { echo "error: the server died in the hostile requests of round $i" >&2; tail "$data/server.log" >&2; exit 1; }
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  rate=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  bad=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  sock=$(grep -o "Socket errors.*" <<<"$out" || true)
  total=$(( total + requests ))
  now=$(rss)
  # the highest RSS of each half: a query may hold up to its memory cap, and
  # the allocator gives pages back when it will, so single readings swing
  if [ "$i" -le $(( rounds / 2 )) ]; then
    [ "$now" -le "$first" ] || first=$now
  else
    [ "$now" -le "$second" ] || second=$now
  fi
  printf 'round %2d: %8d requests (%s/s), RSS %d MiB\n' "$i" "$requests" "$rate" $(( now / 1024 ))
  if [ -n "$bad" ] || [ -n "$sock" ]; then
    echo "error: round $i: ${bad:-0} non-2xx responses; ${sock:-no socket errors}" >&2
    exit 1
  fi
done
growth=$(awk -v a="$first" -v b="$second" 'BEGIN {printf "%.1f", (b - a) * 100 / a}')
echo "$total requests and $(( rounds * 23 )) hostile ones, no errors; highest RSS $(( first / 1024 )) MiB in the first half, $(( second / 1024 )) MiB in the second ($growth %)"
awk -v g="$growth" 'BEGIN {exit !(g <= 10)}' || { echo "error: RSS grew by $growth % (more than 10 %)" >&2; exit 1; }
