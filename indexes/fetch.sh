#!/usr/bin/env bash
# Builds one of the real cross-KG indexes of indexes/recipes/ in one command:
#
#   bash indexes/fetch.sh RECIPE --out DIR [--mirror DIR] [--downloads DIR]
#                                [--langs en,de,…|all] [--qajudge PATH]
#   bash indexes/fetch.sh --list
#
# It finds the recipe's dumps (in --mirror DIR, else in --downloads DIR, else
# downloads them there with resumption), checks them against the checksums their
# publishers give, then streams each one, decompressed and filtered line by line
# to the predicates the recipe needs, through a named pipe into `qajudge index
# build` (no decompressed copy is written), and records where everything came
# from in the index's meta.json (`provenance`). The index is built beside DIR and
# moved into place only once every dump has streamed without error, so a failed
# or interrupted run leaves the previous index at DIR as it was.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
recipes="$here/recipes"
root="$(cd "$here/.." && pwd)"

die() {
  echo "error: $*" >&2
  exit 1
}

usage() {
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- the declarations recipes and dumps.sh make -------------------------------
declare -A D_FILE=() D_URL=() D_SHA256=() D_FORMAT=() D_REWRITE=() D_PUBLISHER=() D_VERSION=() D_LICENCE=() D_SIZE=()
declare -A KEEP=()   # dump -> predicate IRIs to keep, space-separated
declare -a USED=()   # dumps in order of first use
declare -a OPTIONS=() ABOUT=() LOADING=() LANGS=()
declare -A LOADED=()

dump() {
  local name=$1 kv key
  shift
  for kv in "$@"; do
    key=${kv%%=*}
    case "$key" in
      file) D_FILE[$name]=${kv#*=} ;;
      url) D_URL[$name]=${kv#*=} ;;
      sha256) D_SHA256[$name]=${kv#*=} ;;
      format) D_FORMAT[$name]=${kv#*=} ;;
      rewrite) D_REWRITE[$name]=${kv#*=} ;;
      publisher) D_PUBLISHER[$name]=${kv#*=} ;;
      version) D_VERSION[$name]=${kv#*=} ;;
      licence) D_LICENCE[$name]=${kv#*=} ;;
      size) D_SIZE[$name]=${kv#*=} ;;
      *) die "$recipes/dumps.sh: dump $name: unknown field '$key'" ;;
    esac
  done
}

about() { ABOUT+=("$*"); }

use() {
  local name=$1
  shift
  [ -n "${D_FILE[$name]:-}" ] || die "$recipes/${LOADING[-1]}.recipe: unknown dump '$name' (the dumps are declared in $recipes/dumps.sh)"
  [ $# -gt 0 ] || die "$recipes/${LOADING[-1]}.recipe: 'use $name' names no predicate to keep"
  if [ -z "${KEEP[$name]+set}" ]; then
    USED+=("$name")
    KEEP[$name]=""
  fi
  local p
  for p in "$@"; do
    case " ${KEEP[$name]} " in *" $p "*) ;; *) KEEP[$name]+=" $p" ;; esac
  done
}

option() {
  local joined="$*" o
  for o in "${OPTIONS[@]+"${OPTIONS[@]}"}"; do
    [ "$o" != "$joined" ] || return 0
  done
  OPTIONS+=("$joined")
}

langs() { [ ${#LANGS[@]} -gt 0 ] || LANGS=("$@"); }

include() { load_recipe "$1"; }

load_recipe() {
  local name=$1
  [ -f "$recipes/$name.recipe" ] || die "no recipe '$name' in $recipes; the recipes are: $(list_names)"
  [ -z "${LOADED[$name]:-}" ] || return 0
  LOADED[$name]=1
  LOADING+=("$name")
  # shellcheck source=/dev/null
  source "$recipes/$name.recipe"
  unset 'LOADING[-1]'
}

list_names() {
  local f names=()
  for f in "$recipes"/*.recipe; do names+=("$(basename "$f" .recipe)"); done
  echo "${names[*]}"
}

# ---- arguments ------------------------------------------------------------------
recipe="" out="" mirror="" downloads="" qajudge="${QAJUDGE:-}" langs_arg=""
[ $# -gt 0 ] || usage
while [ $# -gt 0 ]; do
  case "$1" in
    --list)
      for f in "$recipes"/*.recipe; do
        printf '%-20s %s\n' "$(basename "$f" .recipe)" "$(sed -n 's/^about "\(.*\)"$/\1/p' "$f" | head -1)"
      done
      exit 0
      ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --mirror) mirror=${2:?--mirror needs a directory}; shift 2 ;;
    --downloads) downloads=${2:?--downloads needs a directory}; shift 2 ;;
    --qajudge) qajudge=${2:?--qajudge needs the path of the qajudge binary}; shift 2 ;;
    --langs) langs_arg=${2:?--langs needs a list such as en,de or all}; shift 2 ;;
    -h | --help) usage ;;
    -*) die "unknown option $1; see bash $0 --help" ;;
    *)
      [ -z "$recipe" ] || die "one recipe at a time (got $recipe and $1)"
      recipe=$1
      shift
      ;;
  esac
done
[ -n "$recipe" ] || die "name a recipe: $(list_names)"
[ -n "$out" ] || die "give the index directory to write with --out DIR"
out="${out%/}"
if [ -n "$mirror" ]; then
  [ -d "$mirror" ] || die "--mirror $mirror is not a directory"
  mirror="$(cd "$mirror" && pwd)"
fi
downloads="${downloads:-$(dirname "$out")/dumps}"

# shellcheck source=recipes/dumps.sh
source "$recipes/dumps.sh"
LOADING=("$recipe")
load_recipe "$recipe"
if [ -n "$langs_arg" ]; then
  LANGS=()
  [ "$langs_arg" = all ] || IFS=', ' read -r -a LANGS <<<"$langs_arg"
fi

for tool in mkfifo sha256sum awk; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing; install coreutils/mawk (apt-get install coreutils mawk)"
done

# ---- where each dump is ---------------------------------------------------------
declare -A PATH_OF=() SOURCE_OF=()
missing=()
for d in "${USED[@]}"; do
  file=${D_FILE[$d]}
  if [ -n "$mirror" ]; then
    found="$mirror/$file"
    [ -f "$found" ] || found="$(find -L "$mirror" -type f -name "$file" -print -quit 2>/dev/null || true)"
    if [ -n "$found" ] && [ -f "$found" ]; then
      PATH_OF[$d]=$found
      SOURCE_OF[$d]="mirror"
    else
      missing+=("$file ($d, published at ${D_URL[$d]})")
    fi
  elif [ -f "$downloads/$file" ]; then
    PATH_OF[$d]="$downloads/$file"
    SOURCE_OF[$d]="downloaded earlier"
  else
    PATH_OF[$d]="$downloads/$file"
    SOURCE_OF[$d]="download"
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'error: --mirror %s lacks what recipe %s reads:\n' "$mirror" "$recipe" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "put those files (as published, under these names, anywhere below $mirror) there, or leave out --mirror to download them" >&2
  exit 1
fi

# Every URL to download is checked before anything starts, so that a machine
# without network fails at once, naming what it needed.
to_download=()
for d in "${USED[@]}"; do
  [ "${SOURCE_OF[$d]}" = download ] && to_download+=("$d")
done
if [ ${#to_download[@]} -gt 0 ]; then
  command -v curl >/dev/null 2>&1 || die "curl is missing, and recipe $recipe must download ${D_URL[${to_download[0]}]}; install curl (apt-get install curl) or pass --mirror DIR holding the dumps"
  for d in "${to_download[@]}"; do
    if ! err=$(curl --silent --show-error --fail --location --head --connect-timeout 15 --max-time 60 "${D_URL[$d]}" 2>&1 >/dev/null); then
      {
        echo "error: cannot reach ${D_URL[$d]}: ${err:-no answer}"
        echo "recipe $recipe needs to download it (and these, which are not in $downloads either):"
        for x in "${to_download[@]}"; do echo "  ${D_URL[$x]}"; done
        echo "without network, fetch them on another machine and run again with --mirror DIR, DIR holding those files under their published names"
      } >&2
      exit 1
    fi
  done
  mkdir -p "$downloads"
  for d in "${to_download[@]}"; do
    file=${D_FILE[$d]}
    echo "downloading ${D_URL[$d]} (${D_SIZE[$d]:-size unknown}) into $downloads/$file.part" >&2
    # --continue-at - resumes a .part left by an interrupted run
    curl --fail --location --retry 5 --retry-delay 10 --connect-timeout 30 \
      --continue-at - --output "$downloads/$file.part" "${D_URL[$d]}" ||
      die "downloading ${D_URL[$d]} failed (curl exit $?); run again to resume from $downloads/$file.part"
    mv "$downloads/$file.part" "$downloads/$file"
  done
fi

# ---- checksums ------------------------------------------------------------------
# A dump's sha256 is computed once per (path, size, modification time) and kept
# in the cache, so that a second build from the same 100 GB dump does not read
# it twice.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/qajudge/dump-sha256"
mkdir -p "$cache" 2>/dev/null || cache=""
declare -A SHA_OF=() CHECK_OF=()
for d in "${USED[@]}"; do
  path=${PATH_OF[$d]}
  stamp="$(readlink -f "$path")|$(stat -L -c '%s|%Y' "$path")"
  key=""
  [ -z "$cache" ] || key="$cache/$(printf '%s' "$stamp" | sha256sum | cut -c1-32)"
  if [ -n "$key" ] && [ -f "$key" ] && [ "$(sed -n 2p "$key")" = "$stamp" ]; then
    sum=$(sed -n 1p "$key")
  else
    echo "checksumming $path" >&2
    sum=$(sha256sum <"$path" | cut -d' ' -f1)
    [ -z "$key" ] || printf '%s\n%s\n' "$sum" "$stamp" >"$key"
  fi
  SHA_OF[$d]=$sum
  if [ -n "${D_SHA256[$d]:-}" ]; then
    if [ "$sum" != "${D_SHA256[$d]}" ]; then
      die "$path: sha256 $sum, but recipes/dumps.sh pinned ${D_SHA256[$d]} for ${D_FILE[$d]} ($d, ${D_VERSION[$d]:-}); the file is damaged or another version: delete it and run again to download it"
    fi
    CHECK_OF[$d]="sha256 matches the one pinned for this immutable version"
  else
    CHECK_OF[$d]="no checksum published for this version; sha256 computed here"
  fi
done

# ---- the qajudge binary -------------------------------------------------------------
if [ -z "$qajudge" ]; then
  if command -v qajudge >/dev/null 2>&1; then
    qajudge=$(command -v qajudge)
  else
    command -v cargo >/dev/null 2>&1 || die "no qajudge binary: put it on PATH, give --qajudge PATH, or install Rust (rustup) so that this script can build it"
    echo "building qajudge (cargo build --release)" >&2
    (cd "$root" && cargo build --release --quiet)
    qajudge="${CARGO_TARGET_DIR:-$root/target}/release/qajudge"
  fi
fi
[ -x "$qajudge" ] || die "$qajudge is not an executable qajudge binary"

# ---- streaming ------------------------------------------------------------------
decompressor() {
  case "$1" in
    *.bz2) if command -v lbzip2 >/dev/null 2>&1; then echo "lbzip2 -dc"; else echo "bzip2 -dc"; fi ;;
    *.gz) if command -v pigz >/dev/null 2>&1; then echo "pigz -dc"; else echo "gzip -dc"; fi ;;
    *.zst) echo "zstd -dcq" ;;
    *) echo "cat" ;;
  esac
}

# The awk program that keeps a line when its predicate is one of the kept ones
# and, for label predicates, when its language is one of LANGS. N-Triples puts
# single spaces between terms in every dump read here; a line whose second field
# is not an IRI in angle brackets is passed on for the indexer to judge.
filter_program='
BEGIN {
  n = split(keep, k, " "); for (i = 1; i <= n; i++) wanted["<" k[i] ">"] = 1
  m = split(langs, l, " "); for (i = 1; i <= m; i++) lang[l[i]] = 1
  label["<http://www.w3.org/2000/01/rdf-schema#label>"] = 1
  label["<http://www.w3.org/2004/02/skos/core#prefLabel>"] = 1
  label["<http://www.w3.org/2004/02/skos/core#altLabel>"] = 1
  label["<http://schema.org/name>"] = 1
  label["<http://xmlns.com/foaf/0.1/name>"] = 1
}
{
  p = $2
  if (substr(p, 1, 1) != "<") { print; next }
  if (!(p in wanted)) next
  if (m > 0 && (p in label)) {
    if (!match($0, /"@[A-Za-z0-9-]+ *\.[ \t\r]*$/)) next
    t = substr($0, RSTART + 2, RLENGTH - 2); sub(/ *\.[ \t\r]*$/, "", t); sub(/-.*/, "", t)
    if (!(tolower(t) in lang)) next
  }
  print
}'

work="$(mktemp -d "${TMPDIR:-/tmp}/qajudge-fetch.XXXXXX")"
new="$out.fetch-new"
pids=()
# each producer runs in its own process group (set -m), so that stopping it
# stops its decompressor and filter too
stop_producers() {
  local pid
  for pid in "${pids[@]+"${pids[@]}"}"; do kill -- "-$pid" 2>/dev/null || true; done
}
cleanup() {
  stop_producers
  rm -rf "$work" "$new"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$(dirname "$out")"
rm -rf "$new"
pipes=()
i=0
set -m
for d in "${USED[@]}"; do
  i=$((i + 1))
  path=${PATH_OF[$d]}
  ext=${D_FORMAT[$d]:-nt}
  pipe="$work/$(printf '%02d' "$i")-$d.$ext"
  mkfifo "$pipe"
  pipes+=("$pipe")
  keep=${KEEP[$d]# }
  rewrite=${D_REWRITE[$d]:-}
  decomp=$(decompressor "$path")
  (
    set -o pipefail
    if [ "$ext" = nt ]; then
      # shellcheck disable=SC2086
      $decomp <"$path" |
        LC_ALL=C awk -v keep="$keep" -v langs="${LANGS[*]+"${LANGS[*]}"}" "$filter_program" |
        if [ -n "$rewrite" ]; then LC_ALL=C sed -e "$rewrite"; else cat; fi >"$pipe"
    else
      # shellcheck disable=SC2086
      $decomp <"$path" >"$pipe"
    fi
  ) 2>"$work/$d.err" &
  pids+=($!)
done
set +m

json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}
{
  printf '{\n  "recipe": %s,\n' "$(json_string "$recipe")"
  printf '  "about": %s,\n' "$(json_string "${ABOUT[0]:-}")"
  printf '  "recipe_sha256": %s,\n' "$(json_string "$(cat "$recipes/dumps.sh" "$recipes"/*.recipe | sha256sum | cut -d' ' -f1)")"
  printf '  "fetched_at": %s,\n' "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
  printf '  "label_languages": %s,\n' "$(json_string "${LANGS[*]:-all}")"
  printf '  "dumps": ['
  sep=""
  for d in "${USED[@]}"; do
    printf '%s\n    {"name": %s, "file": %s, "url": %s, "publisher": %s, "version": %s, "licence": %s, "source": %s, "bytes": %s, "sha256": %s, "checksum": %s, "kept_predicates": %s, "rewrite": %s}' \
      "$sep" "$(json_string "$d")" "$(json_string "${D_FILE[$d]}")" "$(json_string "${D_URL[$d]}")" \
      "$(json_string "${D_PUBLISHER[$d]:-}")" "$(json_string "${D_VERSION[$d]:-}")" "$(json_string "${D_LICENCE[$d]:-}")" \
      "$(json_string "${SOURCE_OF[$d]}: ${PATH_OF[$d]}")" "$(stat -L -c %s "${PATH_OF[$d]}")" \
      "$(json_string "${SHA_OF[$d]}")" "$(json_string "${CHECK_OF[$d]}")" \
      "$(json_string "${KEEP[$d]# }")" "$(json_string "${D_REWRITE[$d]:-}")"
    sep=","
  done
  printf '\n  ]\n}\n'
} >"$work/provenance.json"

build_args=(index build --out "$new" --lenient --provenance "$work/provenance.json")
for o in "${OPTIONS[@]+"${OPTIONS[@]}"}"; do
  # shellcheck disable=SC2206
  build_args+=($o)
done
echo "building $out from recipe $recipe: ${USED[*]}" >&2
status=0
"$qajudge" "${build_args[@]}" "${pipes[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  # the build stopped before reading every pipe: their writers would wait forever
  stop_producers
  pids=()
  die "qajudge index build failed (exit $status); $out is unchanged"
fi
failed=""
for n in "${!pids[@]}"; do
  d=${USED[$n]}
  if ! wait "${pids[$n]}"; then
    failed+="  ${PATH_OF[$d]}: $(tr '\n' ' ' <"$work/$d.err")"$'\n'
  fi
done
pids=()
if [ -n "$failed" ]; then
  printf 'error: reading these dumps failed, so the index was not replaced:\n%s' "$failed" >&2
  echo "a damaged download can be deleted and fetched again; $out is unchanged" >&2
  exit 1
fi

# the new index replaces the old one only now that everything streamed whole
if [ -e "$out" ]; then
  rm -rf "$out.fetch-old"
  mv "$out" "$out.fetch-old"
fi
mv "$new" "$out"
rm -rf "$out.fetch-old"
echo "$out: built from recipe $recipe; provenance in $out/meta.json; try: $qajudge sameas --index $out http://www.wikidata.org/entity/Q42" >&2
