#!/usr/bin/env bash
# Starts a real SPARQL store on loopback with a knowledge graph loaded, for
# `qajudge evaluate --endpoint URL` (and the tests that compare stores).
#
#   scripts/sparql-store.sh oxigraph DIR PORT FILE...   # the oxigraph server (PyPI, in a venv)
#   scripts/sparql-store.sh virtuoso DIR PORT FILE...   # Debian's virtuoso-opensource-7
#   scripts/sparql-store.sh stop DIR                    # stops the store started in DIR
#
# DIR holds the store's database and its pid (it is emptied first); PORT is the
# HTTP port (Virtuoso's SQL port is PORT+1). The FILEs (Turtle, N-Triples,
# N-Quads, RDF/XML; Virtuoso also reads .gz) are loaded into the store's default
# graph (Virtuoso: the graph urn:qajudge:kg, which its endpoint's default graph,
# the union of all graphs, includes). The last line printed is the endpoint URL.
# Virtuoso keeps the packaged configuration (ResultSetMaxRows 10000,
# MaxQueryExecutionTime 60 s), the settings of a default installation.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
kind="${1:-}"
die() { echo "error: $*" >&2; exit 1; }
abs() { (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); }

stop() {
  local dir="$1"
  if [ -f "$dir/pid" ]; then
    kill "$(cat "$dir/pid")" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$dir/pid"
  fi
}

wait_http() {
  local url="$1" what="$2" pid="$3"
  for _ in $(seq 1 600); do
    if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || die "$what exited while starting; see its log"
    sleep 0.1
  done
  die "$what did not answer on $url within 60 s"
}

case "$kind" in
  stop)
    [ $# -eq 2 ] || die "usage: $0 stop DIR"
    stop "$2"
    exit 0
    ;;
  oxigraph|virtuoso) ;;
  *) die "usage: $0 oxigraph|virtuoso DIR PORT FILE... | $0 stop DIR" ;;
esac
[ $# -ge 4 ] || die "usage: $0 $kind DIR PORT FILE..."
dir="$2"; port="$3"; shift 3
for f in "$@"; do [ -f "$f" ] || die "knowledge-graph file $f does not exist"; done
command -v curl >/dev/null 2>&1 || die "curl is missing (apt-get install curl)"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
stop "$dir"
find "$dir" -mindepth 1 -delete

if [ "$kind" = oxigraph ]; then
  bash scripts/install-servers.sh >/dev/null
  bin="${CARGO_TARGET_DIR:-$root/target}/venv-oxigraph/bin/oxigraph"
  case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
  for f in "$@"; do
    "$bin" load --location "$dir/db" --file "$f" >>"$dir/load.log" 2>&1 \
      || die "oxigraph could not load $f; see $dir/load.log"
  done
  "$bin" serve-read-only --location "$dir/db" --bind "127.0.0.1:$port" >"$dir/server.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  wait_http "http://127.0.0.1:$port/query?query=ASK%7B%7D" oxigraph "$(cat "$dir/pid")"
  echo "http://127.0.0.1:$port/query"
  exit 0
fi

command -v virtuoso-t >/dev/null 2>&1 || bash scripts/install-deps.sh --virtuoso
command -v virtuoso-t >/dev/null 2>&1 || die "virtuoso-t is missing (apt-get install virtuoso-opensource-7)"
sql_port=$((port + 1))
mkdir -p "$dir/load"
# Virtuoso reads files only from DirsAllowed: link the files into one folder
for f in "$@"; do ln -s "$(abs "$f")" "$dir/load/$(basename "$f")"; done
sed -e "s|/var/lib/virtuoso-opensource-7/db|$dir|g" \
    -e "s|/var/lib/virtuoso-opensource-7/vsp|/var/lib/virtuoso-opensource-7/vsp|" \
    -e "s|^ServerPort\( *\)= 1111|ServerPort\1= $sql_port|" \
    -e "s|^ServerPort\( *\)= 8890|ServerPort\1= $port|" \
    -e "s|^DirsAllowed.*|DirsAllowed = ., $dir/load, /usr/share/virtuoso-opensource-7/vad|" \
    /etc/virtuoso-opensource-7/virtuoso.ini >"$dir/virtuoso.ini"
(cd "$dir" && exec virtuoso-t +foreground +configfile "$dir/virtuoso.ini") >"$dir/server.log" 2>&1 </dev/null &
echo $! >"$dir/pid"
wait_http "http://127.0.0.1:$port/sparql?query=ASK%7B%7D" virtuoso "$(cat "$dir/pid")"
isql-vt "$sql_port" dba dba exec="ld_dir('$dir/load', '*', 'urn:qajudge:kg'); rdf_loader_run(); checkpoint;" >"$dir/load.log" 2>&1 \
  || die "virtuoso could not load the files; see $dir/load.log"
errors=$(isql-vt "$sql_port" dba dba exec="SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;" 2>&1 | grep -c "$dir/load" || true)
[ "$errors" -eq 0 ] || die "virtuoso could not load some files: isql-vt $sql_port dba dba exec=\"SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST\""
echo "http://127.0.0.1:$port/sparql"
