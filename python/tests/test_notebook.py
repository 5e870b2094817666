"""The worked notebook (python/tests/notebooks/ck25.ipynb, docs/python.md)
executed as a user runs it, with ``jupyter nbconvert --execute``, and every
cell's output checked: the CK25 teams scored from files and from objects, the
LLM judge against a loopback server replying "Yes.", DB25 without its graph
(an error), a frozen gold that keeps nDCG, Ctrl-C with a counting live system,
LaTeX tables with a caption and the challenge's figures, and the report
rendered as HTML."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

from conftest import ROOT

NOTEBOOK = ROOT / "python" / "tests" / "notebooks" / "ck25.ipynb"


def _text(cell: Dict[str, Any]) -> str:
    """Every text a cell printed or displayed."""
    parts: List[str] = []
    for out in cell.get("outputs", []):
        assert out.get("output_type") != "error", "".join(out.get("traceback", []))
        if "text" in out:
            parts.append("".join(out["text"]))
        for kind in ("text/plain", "text/html"):
            if kind in out.get("data", {}):
                parts.append("".join(out["data"][kind]))
    return "".join(parts)


def test_the_worked_notebook_runs_and_says_what_it_should(shared: Path, tmp_path: Path) -> None:
    executed = tmp_path / "ck25.ipynb"
    env = dict(os.environ, QAJUDGE_SHARED=str(shared), QAJUDGE_ROOT=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
         "--ExecutePreprocessor.timeout=600", "--output", str(executed), str(NOTEBOOK)],
        capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    cells = {c["id"]: c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"]}
    outputs = {name: _text(cell) for name, cell in cells.items() if cell["cell_type"] == "code"}
    # the headline of the challenge, per team: set_F, nDCG, set_F+nDCG
    files = outputs["files"]
    assert "set_F" in files and "set_F+nDCG" in files, files
    infai = next(line for line in files.splitlines() if line.strip().startswith("INFAI"))
    assert "0.4755" in infai, files
    assert "objects score as files: True" in outputs["objects"]
    # a judge that replies "Yes." is read as same, and nothing is unreadable
    judge = outputs["judge"]
    assert "same: 2" in judge and "unreadable: 0" in judge, judge
    assert "\\\\caption{TEXT2SPARQL CK25: three teams (QA)}" in outputs["latex"] or "\\\\caption{TEXT2SPARQL CK25: three teams}" in outputs["latex"], outputs["latex"]
    assert "tab:ck25" in outputs["latex"]
    # DB25 without its graph: an error naming the run and what to give
    assert "no graph named: True" in outputs["db25"], outputs["db25"]
    # a frozen gold keeps its order flags: nDCG on the frozen file
    assert "nDCG kept: True" in outputs["freeze"], outputs["freeze"]
    # Ctrl-C: nothing asked after the interrupt (the call in flight at most)
    assert "calls after it: 0" in outputs["interrupt"] or "calls after it: 1" in outputs["interrupt"], outputs["interrupt"]
    assert "challenge's figures: True | no Macro F1 QALD: True" in outputs["latex-t2s"], outputs["latex-t2s"]
    html = outputs["html"]
    assert 'class="qajudge-headline"' in html and "questions_ck25.yml" in html and str(shared) not in html, html[:2000]
    assert "<td>50</td>" in html, "counts are integers"
    assert "qajudge-report" in outputs["repr"]
