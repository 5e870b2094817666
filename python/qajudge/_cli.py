"""The ``qajudge`` console command: the command line of the Rust binary, run
in this process (docs/python.md, The command)."""

from __future__ import annotations

import signal
import sys

from . import _native


def main() -> None:
    """Runs ``qajudge`` with this process's arguments and exits with its code."""
    # Ctrl-C stops the command as it stops the binary (Python's handler would
    # wait for the Rust code to return)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_native.main(["qajudge", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
