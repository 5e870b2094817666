#!/usr/bin/env bash
# Installs the system packages the build needs, through apt-get, when missing:
# a C/C++ compiler (RocksDB, mimalloc, zstd are C/C++) and libclang (the rocksdb
# crate generates its bindings with bindgen). With `--browser` also Debian's
# Chromium and ChromeDriver, for the test of the web page; with `--python`
# Python's venv module (for the SPARQL server the tests run); with `--virtuoso`
# Debian's Virtuoso (the store the TEXT2SPARQL organisers used) and curl; with
# `--recipes` what the index recipes of indexes/ stream dumps with (curl, gzip,
# bzip2, zstd, awk); with `--java` a Java runtime (Debian's OpenJDK 17), which
# Apache Spark runs on; with `--latex` pdflatex with booktabs and poppler's
# pdftotext/pdffonts (the test of the paper-ready tables); with `--wordnet`
# Debian's WordNet 3.0 (wordnet-base: METEOR's synonyms under the t2s-metrics
# profile).
set -euo pipefail
missing=()
command -v c++ >/dev/null 2>&1 || missing+=(build-essential)
if command -v dpkg >/dev/null 2>&1; then
  dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
elif ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
  missing+=(libclang-dev)
fi
for arg in "$@"; do
  case "$arg" in
    --browser)
      command -v chromium >/dev/null 2>&1 || missing+=(chromium)
      command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
      ;;
    --virtuoso)
      command -v virtuoso-t >/dev/null 2>&1 || missing+=(virtuoso-opensource-7)
      command -v curl >/dev/null 2>&1 || missing+=(curl)
      ;;
    --recipes)
      for tool in curl gzip bzip2 zstd; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
      done
      command -v awk >/dev/null 2>&1 || missing+=(mawk)
      ;;
    --latex)
      command -v pdflatex >/dev/null 2>&1 || missing+=(texlive-latex-base texlive-latex-recommended)
      command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
      ;;
    --wordnet)
      [ -f /usr/share/wordnet/index.noun ] || missing+=(wordnet-base)
      ;;
    --java)
      command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
      ;;
    --python)
      python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
      command -v python3 >/dev/null 2>&1 || missing+=(python3)
      ;;
  esac
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing ${missing[*]} and no apt-get to install them; install them and run this again" >&2
    exit 1
  fi
  echo "installing ${missing[*]} (apt-get)" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
