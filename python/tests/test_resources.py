"""A profile's resources are values of one evaluation, not of the process
(docs/python.md): in one Python process, evaluations with two GrailQA
schemas, and then with two KQA Pro training sets, each get their own
figures, equal to the command line's (a fresh process each). And an
evaluation is the call's alone in time too: a Ctrl-C or an exception of
``progress=`` stops all of its work, its worker ended and no request sent
after the call returned (a counting loopback system)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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


# the work grows until one evaluation takes a second, then thirty times that
# is evaluated and interrupted; what the child prints: how long the whole
# would take (measured on this machine), then how long the interrupt took
# and the threads of qajudge still alive once the call returned
INTERRUPTED = r"""
import os, sys, time
import qajudge
q = "SELECT ?x WHERE { " + " ".join("?x <http://e.org/p%d> ?o%d ." % (i, i % 50) for i in range(3000)) + " }"
def cases(n):
    return [{"id": str(i), "golden": q, "generated": q.replace("p1", "p2"), "order_matters": False} for i in range(n)]
def workers():
    try:
        names = [open("/proc/self/task/%s/comm" % t).read().strip() for t in os.listdir("/proc/self/task")]
    except OSError:
        return []
    return [n for n in names if n.startswith("qajudge-")]
n = 1
while True:
    started = time.monotonic()
    qajudge.evaluate(None, [("slow", cases(n))], profile="t2s-metrics")
    took = time.monotonic() - started
    if took >= 1.0:
        break
    n *= 2
print("ready %.3f" % (took * 30), flush=True)
try:
    qajudge.evaluate(None, [("slow", cases(n * 30))], profile="t2s-metrics")
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted %.3f %s" % (time.monotonic(), ",".join(workers()) or "-"), flush=True)
"""


def test_ctrl_c_stops_an_evaluation_and_its_worker() -> None:
    import signal
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        ready = child.stdout.readline().split()
        assert ready and ready[0] == "ready", ready
        whole = float(ready[1])
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        assert line and line[0] == "interrupted", line
        # the call stopped long before the work it was given would have
        # ended (measured on this machine: 30 times a second's work)
        assert float(line[1]) - sent < whole / 3, (line, whole)
        # and its worker had ended when it returned
        assert line[2] == "-", line
        child.wait(timeout=60)
    finally:
        child.kill()


class _Counting:
    """A loopback QA system (GERBIL protocol) that counts the requests it
    receives, answers the first ``answered`` at once and holds every later
    one until the test ends (the client's timeout ends it): a request in
    flight when the evaluation is interrupted."""

    def __init__(self, answered: int) -> None:
        import http.server
        import threading

        self.requests = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.reached = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.requests += 1
                    n = outer.requests
                if n > answered:
                    outer.reached.set()
                    outer.release.wait(120)
                body = json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": [
                    {"x": {"type": "uri", "value": "http://ex.org/a"}}]}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/qa"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def count(self) -> int:
        with self.lock:
            return self.requests

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _gold(path: Path, questions: int) -> Path:
    path.write_text(json.dumps({"questions": [
        {"id": str(i), "question": [{"language": "en", "string": f"question {i}"}],
         "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
             {"x": {"type": "uri", "value": "http://ex.org/a"}}]}}]}
        for i in range(1, questions + 1)
    ]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["progress", "ctrl-c"])
def test_an_interrupt_stops_asking_the_live_system(tmp_path: Path, how: str) -> None:
    import _thread

    gold = _gold(tmp_path / "gold.json", 50)
    system = _Counting(answered=3)
    timeout_ms = 3000
    seen: list = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= 3:
            raise KeyboardInterrupt("stopped by progress")

    def interrupt() -> None:
        # Ctrl-C once a request is held in flight
        system.reached.wait(60)
        _thread.interrupt_main()

    try:
        if how == "ctrl-c":
            import threading

            threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            qajudge.evaluate(gold, system_url=system.url, concurrency=1, timeout_ms=timeout_ms,
                             progress=progress if how == "progress" else None)
        returned = system.count()
        # no request after the call returned, within one request's timeout
        # and the held request ended (released: the system would answer now)
        system.release.set()
        import time

        time.sleep(timeout_ms / 1000)
        assert system.count() == returned, (returned, system.count())
        # the evaluation stopped at the request held in flight: of 50
        # questions, the 3 answered, the one held and at most one more (a
        # request whose timeout ended before the interrupt was seen)
        assert 4 <= returned <= 5, returned
    finally:
        system.close()
