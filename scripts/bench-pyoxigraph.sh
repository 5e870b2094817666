#!/usr/bin/env bash
# The comparison the SPARQL benchmark quotes: loading the CK25 graph and
# executing its 50 gold queries through pyoxigraph in a Python loop (a venv
# under the build directory). Prints milliseconds; compare with
# `cargo bench --bench sparql` run just before or after, as ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="$target/venv-pyoxigraph"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c "import pyoxigraph, yaml" 2>/dev/null ||
  "$venv/bin/pip" install -q --disable-pip-version-check "pyoxigraph==0.5.*" pyyaml
"$venv/bin/python" - "${1:-../shared/data/text2sparql}" <<'PY'
import sys, time, yaml, pyoxigraph as ox
d = sys.argv[1]
qs = [q["query"]["sparql"] for q in yaml.safe_load(open(f"{d}/benchmark/questions_ck25.yml"))["questions"]]
def load():
    s = ox.Store()
    for f in ("prod-inst.ttl", "prod-vocab.ttl"):
        s.load(path=f"{d}/kg/{f}", format=ox.RdfFormat.TURTLE)
    return s
def best(f, n=10):
    out = []
    for _ in range(n):
        t = time.perf_counter(); f(); out.append((time.perf_counter() - t) * 1000)
    return min(out), sorted(out)[n // 2]
store = load()
def run():
    for q in qs:
        try:
            r = store.query(q)
            if isinstance(r, ox.QuerySolutions): list(r)
        except Exception:
            pass
print("pyoxigraph %s: load graph min/median ms %.1f / %.1f" % ((ox.__version__,) + best(load)))
print("pyoxigraph: execute 50 gold queries min/median ms %.1f / %.1f" % best(run))
PY
