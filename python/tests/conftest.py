"""What the tests of the package share: the repository's paths, the real data
beside it (``../shared/data``: skipped when missing, a failure under
``CI=true``), the command line to compare with, and the demo index.

``QAJUDGE_BIN`` names the command the package is compared with (the Rust
test suite sets the binary cargo built); without it, the ``qajudge`` console
command of this venv."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "data" / "demo"
SHARED = ROOT.parent / "shared" / "data"


def console() -> str:
    """The ``qajudge`` console command installed beside this Python."""
    path = Path(sys.executable).parent / "qajudge"
    assert path.is_file(), f"{path} is missing: install the package (pip install .)"
    return str(path)


def cli() -> str:
    """The command line the package is compared with."""
    return os.environ.get("QAJUDGE_BIN") or console()


def run_cli(*args: object, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the command line with ``args`` from the repository root."""
    out = subprocess.run(
        [cli(), *[str(a) for a in args]], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    if check:
        assert out.returncode == 0, f"{args}: exit {out.returncode}\n{out.stderr}"
    return out


def cli_json(*args: object) -> object:
    return json.loads(run_cli(*args).stdout)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared real data, or a skip (a failure under CI)."""
    if not SHARED.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SHARED} is missing: CI runs the tests with the shared real data beside the project (../shared/data)")
        pytest.skip(f"{SHARED} is missing")
    return SHARED


@pytest.fixture(scope="session")
def nliwod(shared: Path) -> List[Path]:
    """The five NLIWOD runs on QALD-9 train."""
    runs = sorted((shared / "systems" / "nliwod" / "qald9").glob("*.json"))
    assert len(runs) == 5, runs
    return runs


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the demo graph, built by the command line."""
    out = tmp_path_factory.mktemp("index") / "demo"
    run_cli("index", "build", "--out", out, DEMO / "kg.ttl")
    return out


def without_timings(value: object) -> object:
    """A report with its timings (``*_ms``, ``ms``) left out."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "ms" and not k.endswith("_ms")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def assert_same(ours: object, theirs: object, where: str = "report") -> None:
    """Equal key by key, naming the first place where they differ."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), f"{where}: keys {sorted(ours.keys() ^ theirs.keys())} differ"
        for k in ours:
            assert_same(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(ours, list) and isinstance(theirs, list):
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items, not {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


__all__ = ["ROOT", "DEMO", "SHARED", "cli", "console", "run_cli", "cli_json", "without_timings", "assert_same"]
