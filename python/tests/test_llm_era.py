"""The measures of the LLM era through the package: T2S-Metrics' measures
(``profile="t2s-metrics"``), the query experiment, cost, latency, abstention
and truthfulness of a run given as Python objects, and the LLM judge against
the chat-completions test server (tests/llm_server.py) — each equal to what the
command line reports."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import qajudge
from conftest import DEMO, ROOT, assert_same, cli_json, without_timings

GOLD = DEMO / "gold.json"
SPARQL_RUN = DEMO / "sparql-system.json"
KG = DEMO / "kg.ttl"


def _binding(iri: str) -> Dict[str, Any]:
    return {"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": iri}}]}}


def _literal(text: str) -> Dict[str, Any]:
    return {"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": text}}]}}


def test_t2s_metrics_measures_are_the_command_lines(shared: Path) -> None:
    run = shared / "text2sparql" / "t2s-metrics" / "ck25" / "INFAI.jsonl"
    kg = [shared / "text2sparql" / "kg" / "prod-inst.ttl", shared / "text2sparql" / "kg" / "prod-vocab.ttl"]
    report = qajudge.evaluate(runs=[run], profile="t2s-metrics", kg=kg)
    theirs = cli_json("evaluate", "--profile", "t2s-metrics", "--run", run, "--kg", *kg, "--format", "json")
    assert_same(without_timings(report.to_dict()), without_timings(theirs))
    rows = report.per_question("qa")
    assert len(rows) == 50
    # the official figures flattened into columns of their own
    assert rows["official.bleu"].notna().all() and rows["official.sp-f1"].notna().all()
    assert 0.0 < rows["official.bleu"].sum() / 50 < 1.0


def test_the_query_experiment_through_python() -> None:
    report = qajudge.evaluate(GOLD, [SPARQL_RUN], kg=KG, experiments=["qa", "query"])
    theirs = cli_json(
        "evaluate", "--gold", GOLD, "--run", SPARQL_RUN, "--kg", KG, "--experiments", "qa,query", "--format", "json"
    )
    assert_same(without_timings(report.to_dict()), without_timings(theirs))
    rows = report.per_question("query")
    assert len(rows) > 0
    assert set(rows["equivalence"].dropna()) <= {"equivalent", "different", "unknown"}
    assert "equivalent" in set(rows["equivalence"])


def test_cost_latency_abstention_and_truthfulness_of_a_python_run() -> None:
    questions = [
        {"id": "1", "answers": [_binding("http://dbpedia.org/resource/Barack_Obama")],
         "latency_ms": 100, "usage": {"prompt_tokens": 10, "completion_tokens": 5}, "cost": 0.5},
        {"id": "2", "answers": [_literal("I do not know")], "latency_ms": 300},
        {"id": "3", "abstained": True, "answers": [], "latency_ms": 200},
        {"id": "4", "answers": [{"head": {}, "boolean": False}]},
    ]
    report = qajudge.evaluate(GOLD, [("mine", questions)], abstain_marker="I do not know", experiments="qa")
    path_run = {"questions": questions}
    theirs_report = qajudge.evaluate(GOLD, {"mine": path_run}, abstain_marker="I do not know", experiments="qa")
    assert_same(report.to_dict()["runs"], theirs_report.to_dict()["runs"])
    rows = report.per_question("qa").set_index("id")
    assert rows.loc["2", "status"] == "abstained" and rows.loc["3", "status"] == "abstained"
    assert rows.loc["2", "truthfulness"] == 0 and rows.loc["3", "truthfulness"] == 0
    assert rows.loc["4", "truthfulness"] == -1
    assert 0 < rows.loc["1", "truthfulness"] < 1  # one of the two children
    aggregate = report.to_dict()["runs"][0]["experiments"]["qa"]["aggregate"]
    assert aggregate["abstained"] == 2
    latency = aggregate["usage"]["latency_ms"]
    assert (latency["questions"], latency["total"], latency["median"], latency["p95"]) == (3, 600, 200, 300)
    assert aggregate["usage"]["tokens"]["prompt"]["total"] == 10
    assert aggregate["usage"]["cost"]["total"] == 0.5
    assert "calls" not in aggregate["usage"]


@pytest.fixture()
def chat_server() -> Iterator[str]:
    """tests/llm_server.py on loopback: its base URL (…/v1)."""
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "llm_server.py"), "--life", "120"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline().strip()
        assert line.startswith("listening on "), line
        yield line.removeprefix("listening on ")
    finally:
        child.kill()
        child.wait(timeout=30)


def _calls(base: str) -> int:
    with urllib.request.urlopen(f"{base}/calls", timeout=10) as r:
        return int(json.load(r)["calls"])


def test_the_llm_judge_through_python(chat_server: str, tmp_path: Path) -> None:
    questions = [
        {"id": "1", "answers": [_literal("Barack Obama"), _literal("Maya Soetoro-Ng")]},
        {"id": "3", "answers": [_literal("two")]},
    ]
    options = dict(llm_judge=f"{chat_server}/v1", llm_model="rule", llm_cache=tmp_path / "cache", experiments="qa")
    exact = qajudge.evaluate(GOLD, [("mine", questions)], experiments="qa").to_dict()
    judged = qajudge.evaluate(GOLD, [("mine", questions)], **options).to_dict()
    assert "llm_judge" not in exact["runs"][0]
    judge = judged["runs"][0]["llm_judge"]
    assert judge["model"] == "rule" and judge["prompt_version"]
    assert judge["answers"]["same"] >= 2 and judge["matched"] >= 2
    qa = lambda r: r["runs"][0]["experiments"]["qa"]["aggregate"]["micro"]["f1"]  # noqa: E731
    assert qa(judged) > qa(exact)
    assert judge["exact"]["micro"]["f1"] == qa(exact)
    called = _calls(chat_server)
    assert called == judge["answers"]["called"] > 0
    again = qajudge.evaluate(GOLD, [("mine", questions)], **options).to_dict()
    assert _calls(chat_server) == called, "a second run with the same cache makes no call"
    assert again["runs"][0]["llm_judge"]["answers"]["cached"] == judge["answers"]["asked"] + judge["answers"]["checked"]
