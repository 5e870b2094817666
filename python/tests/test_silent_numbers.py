"""No number without a word, in the door the notebook study used
(docs/scoring.md, Executing SPARQL): DB25's teams give queries and no answers,
so without a knowledge graph their answers cannot be scored — an error naming
the run and what to give, never twelve teams at 0.0; a benchmark given as
``gold_answers=`` is an error naming what it was read as; an empty run warns;
an LLM judge that nothing would ask is an error naming the profile."""

from __future__ import annotations

import warnings

import pytest

import qajudge


def test_db25_teams_without_a_graph_are_an_error_naming_the_run(shared):
    t = shared / "text2sparql"
    with pytest.raises(qajudge.QajudgeError) as e:
        qajudge.evaluate(
            str(t / "benchmark" / "questions_db25.yaml"),
            [("INFAI", str(t / "systems" / "INFAI" / "db25_answers.json"))],
            gold_answers=str(t / "benchmark" / "db25_true_result_set.json"),
            profile="text2sparql",
        )
    message = str(e.value)
    assert "INFAI" in message and "gives queries and no answers" in message, message
    assert "kg=" in message and "endpoint=" in message, message
    # the text measures of the queries need no graph
    report = qajudge.evaluate(
        str(t / "benchmark" / "questions_db25.yaml"),
        [("INFAI", str(t / "systems" / "INFAI" / "db25_answers.json"))],
        profile="text2sparql",
        experiments=["query"],
    )
    assert report.to_dict()["runs"][0]["name"] == "INFAI"


def test_a_benchmark_given_as_gold_answers_is_an_error(shared):
    t = shared / "text2sparql"
    yaml = str(t / "benchmark" / "questions_db25.yaml")
    with pytest.raises(qajudge.QajudgeError) as e:
        qajudge.evaluate(
            yaml,
            [str(t / "benchmark" / "db25_true_result_set.json")],
            gold_answers=yaml,
            profile="text2sparql",
        )
    assert "holds no answer set" in str(e.value), str(e.value)


def test_an_empty_run_warns(shared):
    t = shared / "text2sparql"
    kg = [str(t / "kg" / "prod-inst.ttl"), str(t / "kg" / "prod-vocab.ttl")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qajudge.evaluate(
            str(t / "benchmark" / "questions_ck25.yml"),
            [("DBPEDIA-CG", str(t / "systems" / "DBPEDIA-CG" / "ck25_answers.json"))],
            profile="text2sparql",
            kg=kg,
        )
    said = [str(w.message) for w in caught if issubclass(w.category, qajudge.QajudgeWarning)]
    assert any("holds no question" in s for s in said), said


def test_a_judge_nothing_would_ask_is_an_error(shared):
    t = shared / "text2sparql"
    with pytest.raises(qajudge.QajudgeError) as e:
        qajudge.evaluate(
            str(t / "benchmark" / "questions_ck25.yml"),
            [str(t / "benchmark" / "ck25_true_result_set.json")],
            profile="text2sparql",
            llm_judge="http://127.0.0.1:9/v1",
            llm_model="m",
        )
    assert "would never be asked" in str(e.value) and "text2sparql" in str(e.value), str(e.value)


def test_a_headline_with_no_evaluable_question_raises(shared, tmp_path):
    # every question of the gold set apart as unstable: nothing to score
    gold = tmp_path / "gold.json"
    question = lambda i: {  # noqa: E731
        "id": str(i),
        "question": [{"language": "en", "string": f"question {i}"}],
        "unstable": "the endpoint's answer changed between audits",
        "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
            {"x": {"type": "uri", "value": f"http://ex/{i}"}}]}}],
    }
    import json as _json

    gold.write_text(_json.dumps({"questions": [question(1), question(2)]}))
    report = qajudge.evaluate(str(gold), [str(gold)])
    with pytest.raises(qajudge.JobError) as e:
        report.headline()
    assert "every question of the gold is marked unstable" in str(e.value), str(e.value)
    # only the query experiment: no answer figure to head a table
    t = shared / "text2sparql"
    report = qajudge.evaluate(
        str(t / "benchmark" / "questions_db25.yaml"),
        [("INFAI", str(t / "systems" / "INFAI" / "db25_answers.json"))],
        profile="text2sparql",
        experiments=["query"],
    )
    with pytest.raises(qajudge.JobError) as e:
        report.headline()
    assert "no QA experiment" in str(e.value), str(e.value)


def test_reproduce_rederives_a_report_from_its_receipt(shared, tmp_path):
    # docs/reproduce.md: the same figures from the same bytes and options,
    # and a changed input named, from Python as from the command line
    t = shared / "text2sparql"
    gold = tmp_path / "questions_ck25.yml"
    gold.write_bytes((t / "benchmark" / "questions_ck25.yml").read_bytes())
    report = qajudge.evaluate(
        str(gold),
        [("INFAI", str(t / "systems" / "INFAI" / "ck25_answers.json"))],
        gold_answers=str(t / "benchmark" / "ck25_true_result_set.json"),
        profile="text2sparql",
        kg=[str(t / "kg" / "prod-inst.ttl"), str(t / "kg" / "prod-vocab.ttl")],
    )
    for given in (report, report.to_dict()):
        found = qajudge.reproduce(given)
        assert found["reproduced"] and found["verdict"] == "reproduced", found
        assert found["figures"] > 100, found
        assert found["receipt"] == report.to_dict()["receipt"]["sha256"]
    path = tmp_path / "report.json"
    path.write_text(report.to_json())
    assert qajudge.reproduce(path)["reproduced"]
    # no live source: asking again changes nothing
    assert qajudge.reproduce(path, re_execute=True)["verdict"] == "reproduced"
    # the gold changed since: named, nothing evaluated
    gold.write_bytes(gold.read_bytes() + b"\n# edited\n")
    found = qajudge.reproduce(path)
    assert found["verdict"] == "missing" and not found["reproduced"], found
    assert any(line.startswith("changed: gold") for line in found["lines"]), found
    with pytest.raises(qajudge.QajudgeError):
        qajudge.reproduce({"runs": []})


def test_friction_a_directory_swapped_arguments_and_a_typo_are_named(shared, tmp_path):
    gold = str(shared / "text2sparql" / "benchmark" / "ck25_true_result_set.json")
    with pytest.raises(qajudge.InputError) as e:
        qajudge.evaluate(str(tmp_path), [gold])
    assert "not a regular file" in str(e.value), str(e.value)
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate([gold], gold)
    assert "look swapped" in str(e.value), str(e.value)
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(gold, [gold], profle="text2sparql")
    assert "did you mean 'profile'?" in str(e.value) and len(str(e.value)) < 200, str(e.value)
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.features(gold, indx="my-index")
    assert "did you mean 'index'?" in str(e.value), str(e.value)


def test_breakdown_has_the_profile_splits_and_per_question_no_times(shared):
    pandas = pytest.importorskip("pandas")
    t = shared / "text2sparql"
    kg = [str(t / "kg" / "prod-inst.ttl"), str(t / "kg" / "prod-vocab.ttl")]
    go = lambda: qajudge.evaluate(  # noqa: E731
        str(t / "benchmark" / "questions_ck25.yml"),
        [("INFAI", str(t / "systems" / "INFAI" / "ck25_answers.json"))],
        profile="text2sparql",
        kg=kg,
    )
    first, second = go(), go()
    # the challenge's figures by language are a breakdown without by=
    b = first.breakdown("qa")
    langs = b[(b["of"] == "challenge") & (b["feature"] == "language")]
    assert "en" in set(langs["value"]), b
    assert "set_f" in langs.columns, langs.columns
    # two evaluations of the same inputs: equal frames; the times apart
    pandas.testing.assert_frame_equal(first.per_question(), second.per_question())
    assert not any(c.endswith(".ms") for c in first.per_question().columns)
    times = first.timings()
    assert list(times.columns[:2]) == ["run", "id"] and "execution.ms" in times.columns, times.columns
    assert len(times) == len(first.per_question())


def test_a_gold_given_as_an_object_scores_as_its_file(shared):
    import json as _json

    t = shared / "text2sparql"
    result_set = t / "benchmark" / "ck25_true_result_set.json"
    yaml_path = t / "benchmark" / "questions_ck25.yml"
    from_file = qajudge.evaluate(str(yaml_path), [str(result_set)], gold_answers=str(result_set), profile="text2sparql")
    # the YAML's text, and the result set as json.load reads it
    from_text = qajudge.evaluate(yaml_path.read_text(), [str(result_set)], gold_answers=str(result_set),
                                 profile="text2sparql")
    assert from_text.to_dict()["runs"][0]["experiments"]["qa"]["aggregate"] == \
        from_file.to_dict()["runs"][0]["experiments"]["qa"]["aggregate"]
    loaded = _json.loads(result_set.read_text())
    as_dict = qajudge.evaluate(loaded, [str(result_set)], profile="text2sparql")
    assert as_dict.to_dict()["gold"]["questions"] == 50
    with pytest.raises(qajudge.UsageError) as e:
        qajudge.evaluate(42, [str(result_set)])
    assert "gold= is a int" in str(e.value), str(e.value)
