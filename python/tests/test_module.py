"""The package ``qajudge`` installed from its wheel: the console command, and
the in-process API against the command line (the same reports key by key,
timings left out), on the built-in demo and on the real NLIWOD QALD-9 runs."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import pandas
import pytest

import qajudge
from conftest import DEMO, ROOT, assert_same, cli_json, console, run_cli, without_timings

GOLD = DEMO / "gold.json"
RUN = DEMO / "example-system.json"
SPARQL_RUN = DEMO / "sparql-system.json"
QALD9 = Path("qald") / "9" / "qald-9-train-multilingual.json"


def test_the_console_command_answers_its_version_and_scores_the_demo(demo_index: Path) -> None:
    out = subprocess.run([console(), "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # the version, then the index format the build writes
    assert out.stdout.strip().startswith(f"qajudge {qajudge.__version__} (index format "), out.stdout
    # the package's version is the crate's, which the binary prints
    assert run_cli("--version").stdout.strip() == out.stdout.strip()
    scored = subprocess.run(
        [console(), "evaluate", "--gold", GOLD, "--run", RUN, "--index", demo_index],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert scored.returncode == 0, scored.stderr
    row = next(line for line in scored.stdout.splitlines() if line.startswith("example-system"))
    # eval 13, answered 10, empty 2, missing 1, extra 1, micro P 0.75, R 0.6 (README, Quick start)
    assert row.split()[1:9] == ["13", "10", "2", "1", "1", "0.7500", "0.6000", "0.6667"], row
    # exit codes pass through: a usage error 2, a failure 1
    bad = subprocess.run([console(), "evaluate", "--no-such-option"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--no-such-option" in bad.stderr
    missing = subprocess.run([console(), "check", "/no/such/file.json"], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "unusable" in missing.stdout


def test_evaluate_gives_the_json_report_of_the_command_line(demo_index: Path) -> None:
    report = qajudge.evaluate(GOLD, [RUN, SPARQL_RUN], kg=DEMO / "kg.ttl", index=demo_index)
    theirs = cli_json(
        "evaluate", "--gold", GOLD, "--run", RUN, SPARQL_RUN, "--kg", DEMO / "kg.ttl",
        "--index", demo_index, "--format", "json",
    )
    ours = report.to_dict()
    assert [r["name"] for r in ours["runs"]] == ["example-system", "sparql-system"]
    # the SPARQL run's queries were executed on the graph
    assert ours["knowledge_graph"]["triples"] > 0
    assert ours["runs"][1]["experiments"]["qa"]["aggregate"]["executions"]["executed"] > 0
    assert_same(without_timings(ours), without_timings(theirs))
    assert report.runs == ["example-system", "sparql-system"]
    assert report.to_json() == json.dumps(ours, indent=2, ensure_ascii=False) + "\n"


def test_the_paper_and_text_formats_are_the_command_lines() -> None:
    report = qajudge.evaluate(GOLD, [RUN, SPARQL_RUN], kg=DEMO / "kg.ttl", experiments=["qa"], baseline="example-system")
    base = ["evaluate", "--gold", GOLD, "--run", RUN, SPARQL_RUN, "--kg", DEMO / "kg.ttl", "--baseline", "example-system"]
    assert report.to_latex() == run_cli(*base, "--format", "latex").stdout
    assert report.to_markdown() == run_cli(*base, "--format", "markdown").stdout
    assert report.to_table(per_question=True) == run_cli(*base, "--experiments", "qa", "--per-question").stdout
    html = report._repr_html_()
    assert html.startswith("<table") and "example-system" in html and "sparql-system" in html
    # the profile's headline first (a header and a row per run), then QA's table
    headline, qa = html.split('<table class="qajudge-report">')
    assert "Macro F1 QALD" in headline and headline.count("<tr>") == 3
    assert "Macro F1 QALD" in qa and qa.count("<tr>") == 3


def test_aggregates_and_per_question_are_frames_of_the_report() -> None:
    report = qajudge.evaluate(GOLD, [RUN])
    d = report.to_dict()
    aggregates = report.aggregates()
    assert isinstance(aggregates, pandas.DataFrame)
    experiments = [k for k, v in d["runs"][0]["experiments"].items() if v is not None]
    assert list(aggregates["experiment"]) == experiments
    qa = aggregates[aggregates["experiment"] == "qa"].iloc[0]
    # without an index: 6 of 12 answers right (README, Quick start, has the index's 0.75)
    assert qa["micro_precision"] == d["runs"][0]["experiments"]["qa"]["aggregate"]["micro"]["precision"] == 0.5
    assert qa["macro_qald_f1"] == d["runs"][0]["experiments"]["qa"]["aggregate"]["macro_qald"]["f1"]
    per_question = report.per_question()
    assert len(per_question) == len(d["runs"][0]["experiments"]["qa"]["questions"])
    assert list(per_question.columns[:4]) == ["run", "id", "question", "status"]
    assert per_question["question"].notna().all()
    with pytest.raises(KeyError):
        report.per_question(run="no-such-run")


def test_the_nliwod_runs_score_through_python_as_through_the_command_line(shared: Path, nliwod: list) -> None:
    gold = shared / QALD9
    report = qajudge.evaluate(gold, nliwod)
    theirs = cli_json("evaluate", "--gold", gold, "--run", *nliwod, "--format", "json")
    ours = report.to_dict()
    assert len(ours["runs"]) == 5
    for a, b in zip(ours["runs"], theirs["runs"]):
        assert a["name"] == b["name"]
        assert a["experiments"].keys() == b["experiments"].keys()
        for name, x in a["experiments"].items():
            if x is None:
                assert b["experiments"][name] is None
                continue
            assert_same(
                without_timings(x["aggregate"]), without_timings(b["experiments"][name]["aggregate"]),
                f"{a['name']}.{name}",
            )
    assert_same(without_timings(ours), without_timings(theirs))
    rows = report.aggregates()
    assert len(rows) == sum(1 for r in ours["runs"] for x in r["experiments"].values() if x is not None)
    questions = ours["gold"]["questions"]
    for name in report.runs:
        one = report.per_question("qa", run=name)
        assert len(one) == questions and one["id"].is_unique
        assert (one["question"].str.len() > 0).all()
    assert len(report.per_question("qa")) == 5 * questions


def test_a_run_given_as_a_list_scores_like_its_file() -> None:
    with open(RUN, encoding="utf-8") as f:
        document = json.load(f)
    from_file = qajudge.evaluate(GOLD, [("mine", RUN)]).to_dict()
    from_list = qajudge.evaluate(GOLD, [("mine", document["questions"])]).to_dict()
    from_dict = qajudge.evaluate(GOLD, {"mine": document}).to_dict()
    for other in (from_list, from_dict):
        assert other["runs"][0]["name"] == "mine"
        assert_same(other["runs"][0]["experiments"], from_file["runs"][0]["experiments"])
        assert other["comparisons"] == from_file["comparisons"]
    # unnamed, it is named by its position; a file beside it keeps its stem
    mixed = qajudge.evaluate(GOLD, [RUN, document["questions"]])
    assert mixed.runs == ["example-system", "run2"]
    assert mixed.to_dict()["runs"][1]["source"] == "run2"


def test_index_lookups_equal_the_commands(demo_index: Path) -> None:
    index = qajudge.Index(demo_index)
    iris = [
        "http://dbpedia.org/resource/Barack_Obama",
        "http://www.wikidata.org/entity/Q76",
        "https://en.wikipedia.org/wiki/Barack_Obama",
        "http://example.org/not-in-the-graph",
    ]
    for iri in iris:
        [theirs] = cli_json("sameas", "--index", demo_index, iri)
        assert index.sameas(iri) == theirs["members"]
        assert index.types(iri) == cli_json("types", "--index", demo_index, iri)
    assert len(index.sameas(iris[0])) > 1
    assert index.sameas_many(iris) == {i: index.sameas(i) for i in iris}
    for text, lang in [("Barack Obama", None), ("Barack Obama", "de"), ("Барак Обама", "ru"), ("nobody", None)]:
        theirs = cli_json("labels", "--index", demo_index, text, *(["--lang", lang] if lang else []))
        assert index.labels(text, lang=lang) == theirs, (text, lang)
    assert {h["iri"] for h in index.labels("Barack Obama")} >= {iris[0], iris[1]}
    assert index.labels("Barak Obama", fuzzy=1) == cli_json("labels", "--index", demo_index, "Barak Obama", "--fuzzy", "1")
    # a Wikipedia page is named by its class's label
    assert index.name(iris[2], "ru") == "Барак Обама"
    with pytest.raises(qajudge.IndexFileError) as e:
        qajudge.Index(ROOT / "no-such-index")
    assert "no-such-index" in str(e.value)


def test_a_malformed_gold_raises_with_its_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad-gold.json"
    bad.write_text('{"questions": [\n  {"id": "1",, }\n]}', encoding="utf-8")
    with pytest.raises(qajudge.QaldError) as e:
        qajudge.evaluate(bad, [RUN])
    assert (e.value.path, e.value.line, e.value.column) == (str(bad), 2, 14)
    assert isinstance(e.value, qajudge.QajudgeError)
    # the message is the command line's
    cli_out = run_cli("evaluate", "--gold", bad, "--run", RUN, check=False)
    assert cli_out.returncode == 1 and cli_out.stderr.strip() == f"error: {e.value}"
    # a run given as an object is located by its name
    with pytest.raises(qajudge.QaldError) as e:
        qajudge.evaluate(GOLD, [("broken", {"questions": 7})])
    assert e.value.path == "broken"
    summary = qajudge.check(bad)
    assert not summary["usable"] and (summary["line"], summary["column"]) == (2, 14)


def test_a_dead_live_system_raises_not_a_table_of_zeros() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    with pytest.raises(qajudge.LiveSystemError) as e:
        qajudge.evaluate(GOLD, system_url=url)
    assert e.value.url == url and "failed, 13 of 13" in str(e.value)
    # named by its host, not its URL; or by the name given with it
    assert e.value.run == "127.0.0.1", e.value.run
    with pytest.raises(qajudge.LiveSystemError) as e:
        qajudge.evaluate(GOLD, [RUN], system_url=[("mine", url)])
    assert e.value.run == "mine", e.value.run


def test_options_are_the_commands_and_errors_are_typed() -> None:
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(GOLD, [RUN], no_such_option=1)
    assert "no_such_option" in str(e.value) and "docs/python.md" in str(e.value)
    with pytest.raises(qajudge.UsageError):
        qajudge.evaluate(GOLD, [RUN], format="json")
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(GOLD, [RUN], profile="no-such-profile")
    assert "no-such-profile" in str(e.value)
    with pytest.raises(qajudge.InputError):
        qajudge.evaluate(ROOT / "no-such-gold.json", [RUN])
    # a flag and a repeated option reach the command line
    strict = qajudge.evaluate(GOLD, [RUN], strict_literals=True, by=["form"], experiments="qa").to_dict()
    assert list(k for k, v in strict["runs"][0]["experiments"].items() if v is not None) == ["qa"]
    assert "form" in strict["runs"][0]["experiments"]["qa"]["breakdown"]
    assert_same(
        without_timings(strict),
        without_timings(cli_json("evaluate", "--gold", GOLD, "--run", RUN, "--strict-literals", "--by", "form",
                                 "--experiments", "qa", "--format", "json")),
    )


def test_check_features_and_sample_are_their_commands(tmp_path: Path) -> None:
    summary = qajudge.check(GOLD)
    assert summary["usable"] and summary["format"] == "qald-json" and summary["questions"] == 13
    text = run_cli("check", GOLD).stdout
    assert f"  questions: {summary['questions']}" in text
    assert f"  problems: {len(summary['problems'])}" in text
    features = qajudge.features(GOLD)
    assert len(features) == 13
    assert features == cli_json("features", "--gold", GOLD, "--format", "json")
    drawn = qajudge.sample(GOLD, out=tmp_path / "ours", size=4, features=["words", "triple_patterns"], seed=3)
    theirs = cli_json("sample", GOLD, "--out", tmp_path / "theirs", "--size", "4",
                      "--features", "words,triple_patterns", "--seed", "3", "--format", "json")
    assert len(drawn["questions"]) == 4 and drawn["questions"] == theirs["questions"]
    assert drawn["diversity"] == theirs["diversity"]
    ids = (tmp_path / "ours" / "ids.txt").read_text(encoding="utf-8").split()
    assert ids == drawn["questions"]


def test_the_gil_is_released_and_threads_share_the_module(demo_index: Path) -> None:
    # the work grows until one evaluation takes half a second on this machine
    # (an optimised build on an idle one is fast): long enough to tell
    n = 12
    while True:
        runs = {f"r{i}": RUN for i in range(n)}
        started = time.perf_counter()
        expected = qajudge.evaluate(GOLD, runs, index=demo_index).to_dict()
        if time.perf_counter() - started >= 0.5:
            break
        n *= 2
    results: list = []
    gaps: list = []

    def work() -> None:
        results.append(qajudge.evaluate(GOLD, runs, index=demo_index).to_dict())

    started = time.perf_counter()
    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    last = time.perf_counter()
    # the main thread keeps running Python while both evaluations run
    while any(t.is_alive() for t in threads):
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        time.sleep(0.001)
    elapsed = time.perf_counter() - started
    assert len(results) == 2
    for r in results:
        assert_same(without_timings(r), without_timings(expected))
    # an evaluation holding the GIL would stop this loop for its whole length
    assert max(gaps) < elapsed / 2, f"the main thread stopped {max(gaps):.3f} s of {elapsed:.3f} s"
    assert len(gaps) > 20


def test_the_package_is_typed() -> None:
    package = Path(qajudge.__file__).parent
    assert (package / "py.typed").is_file()
    stub = (package / "_native.pyi").read_text(encoding="utf-8")
    from qajudge import _native

    public = [n for n in dir(_native) if not n.startswith("_")]
    assert public, "the extension module exports nothing"
    for name in public:
        assert f"def {name}(" in stub or f"class {name}" in stub, f"{name} is not in _native.pyi"


def test_every_command_has_its_python_function(tmp_path: Path) -> None:
    # the audit, as `qajudge audit --format json` prints it
    ours = qajudge.audit(GOLD, kg=DEMO / "kg.ttl", repeat=2)
    theirs = json.loads(run_cli("audit", "--gold", GOLD, "--kg", DEMO / "kg.ttl", "--repeat", "2", "--format", "json", check=False).stdout)
    assert ours == theirs and ours["repeat"] == 2 and ours["stores"]
    # refresh writes the gold with the executed answers
    out = qajudge.refresh(GOLD, tmp_path / "refreshed.json", kg=DEMO / "kg.ttl")
    assert out.is_file() and json.loads(out.read_text(encoding="utf-8"))["questions"]
    with pytest.raises(qajudge.QajudgeError):
        qajudge.refresh(GOLD, tmp_path, kg=DEMO / "kg.ttl")  # a directory is never replaced
    # an index built from the demo's graph answers its lookups
    index = qajudge.index_build(DEMO / "kg.ttl", out=tmp_path / "index")
    assert index.path
    with pytest.raises(TypeError):
        qajudge.audit(GOLD, no_such=1)  # type: ignore[call-arg]
    with pytest.raises(qajudge.UsageError):
        qajudge.audit(GOLD, profile="no-such-profile")


@pytest.mark.parametrize("keyword", ["by", "experiments", "kg", "system_url", "fetch_index", "name", "runs"])
def test_an_endless_iterable_is_refused_naming_its_keyword(keyword: str) -> None:
    import itertools

    given = {"runs": [RUN]}
    value = itertools.repeat("answertype" if keyword != "runs" else RUN)
    given[keyword] = value
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(GOLD, **given)
    assert f"{keyword}= gives more than {qajudge._native._MAX_ITEMS} items" in str(e.value)
    # the other commands' list keywords too
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.audit(GOLD, kg=itertools.repeat(DEMO / "kg.ttl"))
    assert "kg= gives more than" in str(e.value)
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.sample(GOLD, out="never-written", size=2, features=itertools.repeat("words"))
    assert "features= gives more than" in str(e.value)


def test_every_keyword_of_every_function_is_typed(tmp_path: Path) -> None:
    refused = [
        (lambda: qajudge.evaluate(GOLD, [RUN], max_rows="1000"), 'max_rows=\'1000\': expected a whole number'),
        (lambda: qajudge.audit(GOLD, repeat="3"), 'repeat=\'3\': expected a whole number'),
        (lambda: qajudge.audit(GOLD, max_rows=True), "max_rows=True: expected a whole number"),
        (lambda: qajudge.refresh(GOLD, tmp_path / "r.json", kg=DEMO / "kg.ttl", max_rows=1.5),
         "max_rows=1.5: expected a whole number"),
        (lambda: qajudge.features(GOLD, index=3), "index=3: expected a text or a path"),
        (lambda: qajudge.sample(GOLD, out=tmp_path / "s", size="4"), "size='4': expected a whole number"),
        (lambda: qajudge.index_build(DEMO / "kg.ttl", out=tmp_path / "i", lenient="yes"),
         "lenient='yes': expected a bool"),
        (lambda: qajudge.evaluate(GOLD, [RUN], lang="english"), 'lang="english": not a language tag'),
        (lambda: qajudge.features(GOLD, lang="english"), 'lang="english": not a language tag'),
        (lambda: qajudge.features(GOLD, lang="en_US"), 'lang="en_US": not a language tag'),
    ]
    for call, message in refused:
        with pytest.raises(qajudge.UsageError) as e:
            call()
        assert message in str(e.value), (message, str(e.value))
    # a value's repr is quoted at most 200 characters
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(GOLD, [RUN], max_rows="x" * 100_000)
    assert len(str(e.value)) < 400 and "(100002 characters)" in str(e.value)
    # BCP 47 tags pass, and the typed values reach the command
    assert len(qajudge.features(GOLD, lang="pt-BR")) == 13
    ours = qajudge.audit(GOLD, kg=[DEMO / "kg.ttl"], repeat=2)
    assert ours["repeat"] == 2


def test_audit_writes_the_frozen_gold(tmp_path: Path) -> None:
    out = tmp_path / "frozen.json"
    ours = qajudge.audit(GOLD, kg=DEMO / "kg.ttl", repeat=2, write_gold=out)
    assert ours["stores"] and out.is_file()
    frozen = json.loads(out.read_text(encoding="utf-8"))
    assert frozen["questions"]
    theirs = tmp_path / "theirs.json"
    run_cli("audit", "--gold", GOLD, "--kg", DEMO / "kg.ttl", "--repeat", "2", "--write-gold", theirs,
            "--format", "json", check=False)
    assert frozen["questions"] == json.loads(theirs.read_text(encoding="utf-8"))["questions"]
    # the frozen gold scores
    assert qajudge.evaluate(out, [RUN]).runs == ["example-system"]
