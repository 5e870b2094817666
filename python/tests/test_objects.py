"""Runs given as Python objects are read exactly as their files are
(docs/python.md): for a sample of every run shape in the shared real data —
TEXT2SPARQL answers, T2S-Metrics lines, Spider4SPARQL predictions, KGQAGen
records, QALD-JSON as a dict and as its bare list of questions — the report of
the object equals the report of the file. A run none of whose ids is in the
gold is an error naming ids of both sides, on the command line and in Python;
one that meets fewer than half of the gold is a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import qajudge
from conftest import DEMO, assert_same, run_cli, without_timings

T2S = Path("text2sparql")
KG = [T2S / "kg" / "prod-inst.ttl", T2S / "kg" / "prod-vocab.ttl"]


def _json(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _lines(path: Path) -> List[Dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _questions(path: Path) -> List[Dict[str, Any]]:
    return list(_json(path)["questions"])


#: (what, gold, run, how a notebook loads the run, evaluate's options)
SAMPLES = [
    ("text2sparql answers", T2S / "benchmark" / "questions_ck25.yml", T2S / "systems" / "INFAI" / "ck25_answers.json",
     _json, dict(profile="text2sparql", kg=KG)),
    ("t2s-metrics lines", None, T2S / "t2s-metrics" / "ck25" / "FRANZ.jsonl",
     _lines, dict(profile="t2s-metrics", kg=KG)),
    ("spider4sparql predictions", Path("spider4sparql") / "nl_sparql_pairs" / "dev" / "dev.json",
     Path("spider4sparql") / "GPT-3.5" / "zero_shot_prediction_dev_complete.json", _json, dict(experiments="query")),
    ("kgqagen records", Path("kgqagen") / "data.first15.jsonl", Path("kgqagen") / "data.first15.jsonl",
     _lines, dict(profile="kgqagen")),
    ("qald-json dict", Path("qald") / "9" / "qald-9-train-multilingual.json",
     Path("systems") / "nliwod" / "qald9" / "QAKIS_QALD9_Train.json", _json, dict()),
    ("qald-json questions", Path("qald") / "9" / "qald-9-train-multilingual.json",
     Path("systems") / "nliwod" / "qald9" / "QAKIS_QALD9_Train.json", _questions, dict()),
]


def _resolve(shared: Path, options: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(options)
    if "kg" in out:
        out["kg"] = [shared / k for k in out["kg"]]
    return out


@pytest.mark.parametrize("what,gold,run,load,options", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_an_object_is_read_as_its_file(
    shared: Path, what: str, gold: Optional[Path], run: Path, load: Callable[[Path], Any], options: Dict[str, Any]
) -> None:
    options = _resolve(shared, options)
    gold_path = shared / gold if gold is not None else None
    from_file = qajudge.evaluate(gold_path, [("mine", shared / run)], **options).to_dict()
    from_object = qajudge.evaluate(gold_path, [("mine", load(shared / run))], **options).to_dict()
    ours, theirs = without_timings(from_object), without_timings(from_file)
    assert_same(ours["runs"][0]["experiments"], theirs["runs"][0]["experiments"], what)
    qa = theirs["runs"][0]["experiments"].get("qa") or {}
    aggregate = qa.get("aggregate") or {}
    # a run read as another shape would miss every gold question
    assert aggregate.get("missing", 0) < aggregate.get("evaluated", 1), (what, aggregate)


def test_a_run_of_another_benchmark_is_an_error_naming_ids(shared: Path) -> None:
    db25 = shared / T2S / "benchmark" / "questions_db25.yaml"
    ck25_run = shared / T2S / "systems" / "INFAI" / "ck25_answers.json"
    with pytest.raises(qajudge.QajudgeError) as e:
        qajudge.evaluate(db25, [("infai", _json(ck25_run))])
    message = str(e.value)
    assert "none of its 50 question ids is in the gold" in message, message
    assert '"ck25:' in message and '"db25:' in message, message
    out = run_cli("evaluate", "--gold", db25, "--run", ck25_run, check=False)
    assert out.returncode == 1, out.stdout
    assert "none of its 50 question ids is in the gold" in out.stderr, out.stderr


def test_a_run_that_meets_fewer_than_half_the_gold_warns() -> None:
    gold = DEMO / "gold.json"
    questions = _questions(DEMO / "example-system.json")[:3]
    with pytest.warns(qajudge.QajudgeWarning, match="fewer than half"):
        report = qajudge.evaluate(gold, [("few", questions)])
    warnings = [d for d in report.diagnostics if "fewer than half" in d]
    assert warnings and warnings[0].startswith("run 'few': warning: the run answers 3 of the gold's 13"), report.diagnostics
    # an empty run answered nothing: scored, no error
    empty = qajudge.evaluate(gold, [("empty", [])]).to_dict()
    assert empty["runs"][0]["experiments"]["qa"]["aggregate"]["missing"] == 13


def test_tables_lead_with_the_profiles_headline_and_take_a_caption(shared: Path) -> None:
    gold = shared / T2S / "benchmark" / "questions_ck25.yml"
    run = shared / T2S / "systems" / "INFAI" / "ck25_answers.json"
    report = qajudge.evaluate(gold, [("INFAI", run)], profile="text2sparql", kg=[shared / k for k in KG])
    # the figures the challenge prints, first, as text2sparql evaluate prints them
    headline = report.headline()
    assert list(headline.columns) == ["run", "set_F", "nDCG", "set_F+nDCG"]
    assert round(float(headline["set_F"][0]), 4) == 0.4755
    aggregates = report.aggregates("qa")
    assert list(aggregates.columns)[:5] == ["run", "experiment", "set_F", "nDCG", "set_F+nDCG"]
    assert "qajudge-headline" in report._repr_html_() and "questions_ck25.yml (50 questions)" in report._repr_html_()
    assert str(shared) not in report._repr_html_()
    # the CLI's table leads with them too
    table = report.to_table()
    assert table.splitlines()[2] == "HEADLINE (text2sparql)", table
    # a caption and a label of the caller's; by default the gold's file name
    latex = report.to_latex(caption="CK25, every team", label="tab:ck25")
    assert "\\caption{CK25, every team}" in latex and "\\label{tab:ck25}" in latex
    assert "\\caption{QA on questions\\_ck25.yml}" in report.to_latex(), report.to_latex()


def test_progress_is_told_as_queries_are_executed(shared: Path) -> None:
    gold = shared / T2S / "benchmark" / "questions_ck25.yml"
    run = shared / T2S / "systems" / "FRANZ" / "ck25_answers.json"
    seen: List[tuple] = []
    qajudge.evaluate(gold, [run], profile="text2sparql", kg=[shared / k for k in KG], progress=lambda d, t: seen.append((d, t)))
    assert seen and all(0 <= d <= t for d, t in seen), seen
    assert seen[-1][0] == seen[-1][1] > 0, seen
    # a bar starts from nothing, however far the work got before the first look
    assert seen[0] == (0, seen[-1][1]), seen

    class Bar:  # what the evaluation uses of a tqdm bar
        total = None
        n = 0

        def update(self, k: int) -> None:
            self.n += k

    bar = Bar()
    qajudge.evaluate(gold, [run], profile="text2sparql", kg=[shared / k for k in KG], progress=bar)
    assert bar.total and bar.n == bar.total, (bar.total, bar.n)
    with pytest.raises(qajudge.UsageError):
        qajudge.evaluate(gold, [run], progress=3)
