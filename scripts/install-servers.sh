#!/usr/bin/env bash
# Installs the real SPARQL server the tests run on loopback: the `oxigraph`
# server from PyPI (a prebuilt binary) in a venv under the build directory
# (${CARGO_TARGET_DIR:-target}/venv-oxigraph), a Python for
# scripts/bench-api.sh (${CARGO_TARGET_DIR:-target}/venv-client; the Python
# package's tests use scripts/python-wheel.sh's venv-python), and PySpark, for the closure on
# Apache Spark (${CARGO_TARGET_DIR:-target}/venv-spark), once per build
# directory. Never into the system Python.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="$target/venv-oxigraph"
version="0.5.13"
client="$target/venv-client"
client_tools=("pytest==9.2.0" "openapi-spec-validator==0.9.0")
spark="$target/venv-spark"
spark_version="4.0.1"
if ! python3 -m venv --help >/dev/null 2>&1; then
  bash scripts/install-deps.sh --python
fi
mkdir -p "$target"
if ! { [ -x "$venv/bin/oxigraph" ] && "$venv/bin/oxigraph" --version 2>/dev/null | grep -q "$version"; }; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "oxigraph==$version"
  "$venv/bin/oxigraph" --version
fi
if ! [ -f "$client/.installed" ] || [ "$(cat "$client/.installed")" != "${client_tools[*]}" ]; then
  python3 -m venv "$client"
  "$client/bin/pip" install -q --disable-pip-version-check "${client_tools[@]}"
  echo "${client_tools[*]}" > "$client/.installed"
fi
if ! { [ -x "$spark/bin/python" ] && [ -f "$spark/.installed" ] && [ "$(cat "$spark/.installed")" = "$spark_version" ]; }; then
  python3 -m venv "$spark"
  "$spark/bin/pip" install -q --disable-pip-version-check "pyspark==$spark_version"
  echo "$spark_version" > "$spark/.installed"
fi
