"""``qajudge.Client`` against a real qajudge server (started by the Rust test
suite, which sets QAJUDGE_URL, QAJUDGE_GOLD, QAJUDGE_RUN and QAJUDGE_CLI_REPORT):
every method, its answers checked against the server's OpenAPI document, and
an evaluation whose figures equal the command line's."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

import pytest

from qajudge import Client, ServiceError
from qajudge.client import Experiment, Report

URL = os.environ.get("QAJUDGE_URL")
pytestmark = pytest.mark.skipif(not URL, reason="QAJUDGE_URL is not set: no server to test against")


@pytest.fixture(scope="module")
def client() -> Client:
    return Client(URL or "")


@pytest.fixture(scope="module")
def openapi(client: Client) -> dict:
    return client.openapi()


def conforms(openapi: dict, path: str, method: str, status: int, body: object) -> None:
    """Validates a JSON answer against the schema the document gives it."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    response = openapi["paths"][path][method]["responses"][str(status)]
    schema = response["content"]["application/json"]["schema"]
    registry = Registry().with_resource("urn:qajudge", Resource.from_contents(openapi, DRAFT202012))
    wrapped = {"$id": "urn:qajudge-answer", **_rebase(schema)}
    Draft202012Validator(wrapped, registry=registry).validate(body)


def _rebase(schema: object) -> object:
    """Points local references at the document's resource."""
    if isinstance(schema, dict):
        return {
            k: ("urn:qajudge" + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else _rebase(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_rebase(x) for x in schema]
    return schema


def raw(path: str, body: object = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def test_the_openapi_document_validates(openapi: dict) -> None:
    from openapi_spec_validator import validate

    validate(openapi)
    assert openapi["openapi"].startswith("3.1")
    assert "/api/v1/evaluate" in openapi["paths"]


def test_answers_conform_to_the_document(client: Client, openapi: dict) -> None:
    health = client.health()
    assert health.status == "ok" and health.store["state"] == "ok" and health.benchmarks >= 1
    conforms(openapi, "/api/v1/health", "get", 200, health.raw)
    conforms(openapi, "/api/v1/sameas", "post", 200, raw("/api/v1/sameas", ["http://dbpedia.org/resource/Berlin"]))
    conforms(openapi, "/api/v1/canonical", "post", 200, raw("/api/v1/canonical", ["https://dbpedia.org/page/Berlin"]))
    conforms(openapi, "/api/v1/types", "post", 200, raw("/api/v1/types", ["http://dbpedia.org/resource/Berlin"]))
    conforms(openapi, "/api/v1/labels", "post", 200, raw("/api/v1/labels", [{"text": "Berlin"}]))
    conforms(openapi, "/api/v1/benchmarks", "get", 200, raw("/api/v1/benchmarks"))
    conforms(openapi, "/api/v1/annotate", "post", 200,
             raw("/api/v1/annotate", {"sparql": "SELECT ?x WHERE { ?x a <http://dbpedia.org/ontology/City> }"}))
    one = {"gold": [{"type": "uri", "value": "http://dbpedia.org/resource/Berlin"}],
           "run": [{"type": "uri", "value": "https://dbpedia.org/resource/Berlin"}]}
    conforms(openapi, "/api/v1/match", "post", 200, raw("/api/v1/match", one))
    conforms(openapi, "/api/v1/match", "post", 200, raw("/api/v1/match", {"questions": [{"id": 1, **one}]}))
    report = raw("/api/v1/evaluate", {"gold": "demo", "runs": [_run_document()]})
    conforms(openapi, "/api/v1/evaluate", "post", 200, report)
    try:
        raw("/api/v1/sameas", {"nope": 1})
    except urllib.error.HTTPError as e:
        assert e.code == 400
        conforms(openapi, "/api/v1/sameas", "post", 400, json.loads(e.read()))


def _run_document() -> dict:
    path = os.environ["QAJUDGE_RUN"]
    with open(path, encoding="utf-8") as f:
        return {"name": os.path.basename(path), "document": json.load(f)}


def test_an_evaluation_equals_the_command_line(client: Client) -> None:
    with open(os.environ["QAJUDGE_CLI_REPORT"], encoding="utf-8") as f:
        cli = Report.of(json.load(f))
    report = client.evaluate("demo", [os.environ["QAJUDGE_RUN"]])
    assert [r.name for r in report.runs] == [r.name for r in cli.runs]
    for ours, theirs in zip(report.runs, cli.runs):
        assert ours.experiments.keys() == theirs.experiments.keys()
        for name, x in ours.experiments.items():
            assert x.aggregate.raw == theirs.experiments[name].aggregate.raw, name
            assert [q.f1 for q in x.questions] == [q.f1 for q in theirs.experiments[name].questions]
    qa = report.run("example-system").experiments["qa"].aggregate
    assert qa.micro is not None and abs(qa.micro.precision - 9 / 12) < 1e-12
    # the gold inline, as a file, gives the same figures
    inline = client.evaluate(os.environ["QAJUDGE_GOLD"], [("example-system", os.environ["QAJUDGE_RUN"])])
    assert inline.runs[0].experiments["qa"].aggregate.raw == qa.raw
    # two runs: their paired tests, with Holm-Bonferroni adjusted p-values
    two = client.evaluate("demo", [("a", os.environ["QAJUDGE_RUN"]), ("b", os.environ["QAJUDGE_RUN"])])
    qa_tests = [c for c in two.comparisons if c.experiment == "qa"]
    assert len(qa_tests) == 1 and qa_tests[0].run_a == "a" and qa_tests[0].run_b == "b"
    assert qa_tests[0].correction == "holm-bonferroni" and qa_tests[0].f1_difference == 0
    assert qa_tests[0].p_f1_adjusted >= qa_tests[0].p_f1


def test_lookups_and_matching(client: Client) -> None:
    [c] = client.canonical(["https://dbpedia.org/page/Berlin"])
    assert c.canonical == "http://dbpedia.org/resource/Berlin"
    classes = client.sameas(["http://dbpedia.org/resource/Berlin", "http://nowhere.example/x"])
    assert len(classes) == 2 and classes[1].class_size == 1
    assert classes[0].iri == "http://dbpedia.org/resource/Berlin"
    answers = client.labels(["Berlin"])
    assert answers[0].text == "Berlin"
    assert isinstance(client.types(["http://dbpedia.org/resource/Berlin"])[0].types, list)
    m = client.match(["http://dbpedia.org/resource/Berlin"], ["https://dbpedia.org/resource/Berlin"])
    assert not isinstance(m, list) and m.tp == 1 and m.f1 == 1.0
    many = client.match(questions=[
        {"id": "a", "gold": ["http://x.org/1"], "run": ["http://x.org/1"]},
        {"id": "b", "gold": ["http://x.org/1"], "run": ["http://x.org/2"]},
    ])
    assert isinstance(many, list)
    assert [(q.id, q.tp, q.fp) for q in many] == [("a", 1, 0), ("b", 0, 1)]


def test_errors_carry_the_services_code(client: Client) -> None:
    with pytest.raises(ServiceError) as e:
        client.evaluate("no-such-benchmark", [os.environ["QAJUDGE_RUN"]])
    assert e.value.status == 404 and e.value.code == "not_found"
    with pytest.raises(ServiceError) as e:
        client.sameas(["http://x.org/"] * 10_001)
    assert e.value.code == "batch_too_large"


def test_private_experiments_publishing_and_sparql(client: Client) -> None:
    created = client.submit([os.environ["QAJUDGE_RUN"]], benchmark="demo")
    assert not created.published and len(created.token) == 64
    # the page address keeps the token after "#", which is never sent to the server
    assert created.url == f"/experiments/{created.id}#token={created.token}"
    with pytest.raises(ServiceError) as e:
        client.experiment(created.id)
    assert e.value.status == 404
    done: Experiment = client.wait(created.id, created.token)
    assert done.status == "done" and done.report is not None
    assert done.report.runs[0].experiments["qa"].aggregate.macro_qald.f1 >= 0
    client.publish(created.id, created.token)
    assert client.experiment(created.id).published
    ttl = client.rdf(created.id)
    assert "qb:Observation" in ttl
    results = client.sparql(
        "PREFIX qj: <https://w3id.org/qajudge/vocab#> "
        "SELECT ?f WHERE { ?d <http://purl.org/dc/terms/identifier> \"%s\" . "
        "?o <http://purl.org/linked-data/cube#dataSet> ?d ; qj:experiment qj:qa ; qj:macroF1QALD ?f }" % created.id
    )
    [row] = results["results"]["bindings"]
    assert float(row["f"]["value"]) == done.report.runs[0].experiments["qa"].aggregate.macro_qald.f1


def test_submit_sets_protocol_language_and_execution(client: Client) -> None:
    run = os.environ["QAJUDGE_RUN"]
    # the fields reach the server: an unknown protocol is its 400
    with pytest.raises(ServiceError) as e:
        client.submit([run], benchmark="demo", protocol="smoke-signals")
    assert e.value.status == 400 and e.value.code == "bad_parameter"
    assert "smoke-signals" in str(e.value)
    created = client.submit(
        [run], benchmark="demo", protocol="gerbil", lang="de", dataset="demo",
        names=["mine"], confidence=True, by=["form"],
    )
    done: Experiment = client.wait(created.id, created.token)
    assert done.status == "done"
    assert done.lang == "de" and done.protocol == "gerbil"
    assert done.report is not None and done.report.runs[0].name == "mine"
    qa = done.report.runs[0].experiments["qa"]
    assert qa.aggregate.raw.get("confidence") is not None
    assert "select" in qa.breakdown["form"]
    client.publish(created.id, created.token)
    board = client.leaderboard("demo")
    assert any(r["experiment"] == created.id and r["run"] == "mine" for r in board["rows"])
