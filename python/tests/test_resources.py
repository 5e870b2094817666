"""A profile's resources are values of one evaluation, not of the process
(docs/python.md): in one Python process, evaluations with two GrailQA
schemas, and then with two KQA Pro training sets, each get their own
figures, equal to the command line's (a fresh process each)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import qajudge
from conftest import cli_json


def _answers(*xs: str) -> list:
    return [{"answer_type": "Entity", "answer_argument": x} for x in xs]


ALBUM = "(AND music.album (JOIN music.album.artist m.0abc))"
GRAIL_GOLD = [
    {"qid": 1, "level": "i.i.d.", "s_expression": ALBUM, "answer": _answers("m.1", "m.2")},
    {"qid": 2, "level": "compositional", "s_expression": ALBUM, "answer": _answers("m.1")},
]
# question 1's form names the album's artist through the reverse relation:
# the same form only under a schema whose reverse_properties pairs them
GRAIL_RUN = {
    "1": {"logical_form": "(AND music.album (JOIN (R music.artist.album) m.0abc))", "answer": []},
    "2": {"logical_form": "(JOIN music.album.artist m.0abc)", "answer": []},
}


def _official(report: dict) -> dict:
    return report["runs"][0]["experiments"]["qa"]["aggregate"]["official"]


def _official_as_the_cli(gold: Path, run: Path, profile: str, **resource: Path) -> dict:
    """The official figures of an in-process evaluation, checked equal to a
    fresh command line's."""
    ours = _official(qajudge.evaluate(gold, [run], profile=profile, **resource).to_dict())
    (name, path), = resource.items()
    theirs = _official(cli_json("evaluate", "--gold", gold, "--run", run, "--profile", profile,
                                f"--{name}", path, "--format", "json"))
    assert ours == theirs, path
    return ours


def test_two_grailqa_schemas_in_one_process(shared: Path, tmp_path: Path) -> None:
    full = shared / "freebase" / "grailqa" / "ontology"
    cut = tmp_path / "ontology-without-reverse"
    shutil.copytree(full, cut)
    lines = (full / "reverse_properties").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if "music.artist.album" not in line.split()]
    assert len(kept) < len(lines)
    (cut / "reverse_properties").write_text("".join(kept), encoding="utf-8")
    gold, run = tmp_path / "gold.json", tmp_path / "pred.json"
    gold.write_text(json.dumps(GRAIL_GOLD), encoding="utf-8")
    run.write_text(json.dumps(GRAIL_RUN), encoding="utf-8")
    figures = []
    for ontology in (full, cut, full):
        figures.append(_official_as_the_cli(gold, run, "grailqa", ontology=ontology)["em"])
    # the reverse relation's pair matters to question 1 only
    assert figures[0] == figures[2] > figures[1], figures


KQAPRO_GOLD = [
    {"program": [{"function": "Find", "dependencies": [], "inputs": []}], "answer": "Paris"},
    {"program": [{"function": "Count", "dependencies": [], "inputs": []}], "answer": "5"},
]


def test_two_kqapro_training_sets_in_one_process(tmp_path: Path) -> None:
    gold, run = tmp_path / "test_answer.json", tmp_path / "pred.txt"
    gold.write_text(json.dumps(KQAPRO_GOLD), encoding="utf-8")
    run.write_text("Paris\n5\n", encoding="utf-8")
    paris, five = tmp_path / "train-paris.json", tmp_path / "train-five.json"
    paris.write_text(json.dumps([{"answer": "Paris"}]), encoding="utf-8")
    five.write_text(json.dumps([{"answer": "5"}, {"answer": "Paris"}]), encoding="utf-8")
    totals = []
    for train in (paris, five, paris):
        totals.append(_official_as_the_cli(gold, run, "kqapro", train=train).get("zero-shot_total"))
    # zero-shot: the gold answers no training record has
    assert totals == [1.0, None, 1.0], totals


def test_max_input_mb_is_a_value_of_one_call() -> None:
    import threading

    from conftest import DEMO

    gold, run = DEMO / "gold.json", DEMO / "example-system.json"
    failures = {"small": 0, "default": 0}
    stop = threading.Event()

    def small() -> None:
        while not stop.is_set():
            try:
                qajudge.evaluate(gold, [run], max_input_mb=0, experiments="qa")
            except qajudge.QajudgeError:
                failures["small"] += 1

    thread = threading.Thread(target=small)
    thread.start()
    try:
        for _ in range(40):
            try:
                qajudge.evaluate(gold, [run], experiments="qa")
            except qajudge.QajudgeError:
                failures["default"] += 1
    finally:
        stop.set()
        thread.join(timeout=60)
    # the other thread's limit of 0 MiB refused its own files only
    assert failures["small"] > 0 and failures["default"] == 0, failures


def test_an_unknown_baseline_of_a_table_is_an_error() -> None:
    from conftest import DEMO

    report = qajudge.evaluate(DEMO / "gold.json", [DEMO / "example-system.json"])
    import pytest

    with pytest.raises(qajudge.UsageError) as e:
        report.to_latex(baseline="nope")
    assert "example-system" in str(e.value)


INTERRUPTED = r'''
import json, sys, time
import qajudge
q = "SELECT ?x WHERE { " + " ".join("?x <http://e.org/p%d> ?o%d ." % (i, i % 50) for i in range(6000)) + " }"
cases = [{"id": str(i), "golden": q, "generated": q.replace("p1", "p2"), "order_matters": False} for i in range(20)]
print("ready", flush=True)
try:
    qajudge.evaluate(None, [("slow", cases)], profile="t2s-metrics")
    print("finished")
except KeyboardInterrupt:
    print("interrupted %.3f" % time.monotonic(), flush=True)
'''


def test_ctrl_c_stops_an_evaluation_within_a_second() -> None:
    import signal
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        assert line.startswith("interrupted"), line
        # the interrupt arrived within a second of the signal (an evaluation of
        # 20 such cases takes about a minute)
        assert float(line.split()[1]) - sent < 1.0, line
        child.wait(timeout=60)
    finally:
        child.kill()
