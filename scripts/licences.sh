#!/usr/bin/env bash
# The licence policy of the binary (deny.toml, docs/testing.md "Licences"):
# installs cargo-deny once per build directory (under
# ${CARGO_TARGET_DIR:-target}/tools, from crates.io, its lock file kept), then
# checks that every crate linked into `qajudge` or the Python package's
# extension module (the workspace; dev-dependencies left out)
# has a licence deny.toml allows and that no banned crate is in the tree. A
# GPL, AGPL or LGPL crate, or one of unknown licence, fails with its name.
# With `--list`, prints the crates linked into the binary with their licences
# instead (scripts/third-party.sh writes them into THIRD-PARTY-NOTICES.md).
set -euo pipefail
cd "$(dirname "$0")/.."
DENY_VERSION=0.20.2
tools="${CARGO_TARGET_DIR:-target}/tools"
deny="$tools/bin/cargo-deny"
if [ ! -x "$deny" ] || ! "$deny" --version 2>/dev/null | grep -q "$DENY_VERSION"; then
  echo "installing cargo-deny $DENY_VERSION into $tools (once per build directory)" >&2
  cargo install cargo-deny --version "=$DENY_VERSION" --locked --root "$tools" >&2
fi
if [ "${1:-}" = "--list" ]; then
  exec "$deny" --locked --exclude-dev --workspace list --layout crate --format json
fi
"$deny" --locked --exclude-dev --workspace check licenses bans
