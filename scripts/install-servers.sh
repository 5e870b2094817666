#!/usr/bin/env bash
# Installs the real SPARQL server the tests run on loopback: the `oxigraph`
# server from PyPI (a prebuilt binary) in a venv under the build directory
# (${CARGO_TARGET_DIR:-target}/venv-oxigraph), once per build directory. Never
# into the system Python.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="$target/venv-oxigraph"
version="0.5.13"
if [ -x "$venv/bin/oxigraph" ] && "$venv/bin/oxigraph" --version 2>/dev/null | grep -q "$version"; then
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  bash scripts/install-deps.sh --python
fi
mkdir -p "$target"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "oxigraph==$version"
"$venv/bin/oxigraph" --version
