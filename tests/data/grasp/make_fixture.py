"""GRASP's own per-question scores of the five CK25 outputs, for the `grasp` profile's test.

Runs GRASP's code itself (ad-freiburg/grasp @ 2ff2482), not a transcription: the
functions and classes named below are taken by name from GRASP's source files
(`--grasp DIR`, a checkout or `git archive` of that commit) and executed here.
Only the loop of `scripts/evaluate.py` is restated (it asks a QLever endpoint
over HTTP): both queries are executed on the CK25 graph instead, and each
result goes through the SPARQL JSON that GRASP's `execute` reads.

Executions: with `--executions FILE` (what `qajudge` executed, dumped by the
test `grasp_executions_dump`, see README.md), else with pyoxigraph on the graph
files given by `--kg`.

NumPy must be 1.x (GRASP's evaluation files were written with it: under
NumPy 2 an assignment score is a numpy.float32 and `json.dump` fails), so the
scores are float64 arithmetic on float32 matrix sums, as NumPy 1.26 computes.

    python make_fixture.py --grasp SRC --test test.jsonl --kg a.ttl --kg b.ttl \
        --out grasp_ck25.json OUTPUT.jsonl...
"""

import argparse
import ast
import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np
from scipy.optimize import linear_sum_assignment

# what is taken from GRASP's files, by file
TAKEN = {
    "src/grasp/sparql/constants.py": ["AskResult", "Binding", "SelectRow", "SelectResult"],
    "src/grasp/sparql/metrics.py": [
        "exact_f1_score",
        "assignment_f1_score",
        "f1_score",
        "get_result_size",
    ],
    "src/grasp/utils.py": [
        "is_server_error",
        "is_invalid_evaluation",
        "is_tool_fail",
        "is_error",
        "is_invalid_model_output",
    ],
    "apps/evaluation/app.py": ["calculate_metrics"],
}


def load_grasp(root: str) -> dict:
    """GRASP's definitions, executed from its own source text."""
    namespace = {
        "Counter": Counter,
        "dataclass": dataclass,
        "Any": Any,
        "Iterable": Iterable,
        "Iterator": Iterator,
        "np": np,
        "linear_sum_assignment": linear_sum_assignment,
    }
    for path, names in TAKEN.items():
        with open(os.path.join(root, path)) as f:
            tree = ast.parse(f.read())
        found = {}
        for node in tree.body:
            name = getattr(node, "name", None)
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
            if name in names:
                found[name] = node
        missing = set(names) - set(found)
        assert not missing, f"{path}: {missing} not found"
        # in file order, so that a definition meets the names it uses
        module = ast.Module(body=[found[n] for n in names], type_ignores=[])
        exec(compile(module, path, "exec"), namespace)
    return namespace


def load_jsonl(path: str) -> list:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class Executor:
    """Both queries executed on the CK25 graph, as SPARQL JSON results."""

    def __init__(self, kg: list[str], executions: str | None):
        self.dumped = None
        if executions:
            with open(executions) as f:
                self.dumped = json.load(f)
            return
        import pyoxigraph

        self.store = pyoxigraph.Store()
        for path in kg:
            self.store.bulk_load(path=path, format=pyoxigraph.RdfFormat.TURTLE)
        self.pyoxigraph = pyoxigraph

    def json(self, side: str, id: str, sparql: str) -> tuple[dict | None, str | None]:
        if self.dumped is not None:
            e = self.dumped[side][id]
            # qajudge trims a query's surrounding white space
            assert e["sparql"].strip() == sparql.strip(), f"{side} {id}: another query"
            return e["result"], e["err"]
        try:
            results = self.store.query(sparql)
            if isinstance(results, self.pyoxigraph.QueryBoolean):
                return {"head": {}, "boolean": bool(results)}, None
            data = results.serialize(format=self.pyoxigraph.QueryResultsFormat.JSON)
            return json.loads(data), None
        except Exception as e:  # GRASP's get_result_or_error
            return None, str(e)


def get_result_or_error(g: dict, executor: Executor, side: str, id: str, sparql: str):
    """`metrics.get_result_or_error`, with `execute`'s reading of the JSON."""
    res, err = executor.json(side, id, sparql)
    if res is None:
        return None, err
    if "boolean" in res:
        return g["AskResult"](res["boolean"]), None
    return g["SelectResult"].from_json(res), None


def evaluate(g: dict, inputs: dict, predictions: list, executor: Executor, name: str, exact):
    """The loop of `scripts/evaluate.py` (no `--reparse-answer`, a fresh file)."""
    evaluations = {}
    for pred in predictions:
        if g["is_invalid_model_output"](pred):
            continue
        id = pred["id"]
        if id in evaluations:
            continue
        target = inputs[id]["sparql"]
        target_set, target_err = get_result_or_error(g, executor, "gold", id, target)
        evaluations[id] = {
            "target": {"err": target_err, "size": g["get_result_size"](target_set)},
        }
        sparql = pred["sparql"]
        if target_set is None or sparql is None:
            continue
        pred_set, pred_err = get_result_or_error(g, executor, name, id, sparql)
        if pred_set is not None:
            score = g["f1_score"](pred_set, target_set, exact)
        else:
            score = 0.0
        evaluations[id]["prediction"] = {
            "err": pred_err,
            "size": g["get_result_size"](pred_set),
            "score": score,
            "elapsed": pred["elapsed"],
        }
    # as evaluate.py writes them: json.dump (a numpy.float32 would fail here)
    return json.loads(json.dumps(evaluations))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grasp", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--kg", action="append", default=[])
    parser.add_argument("--executions")
    parser.add_argument("--exact-after", type=int, default=1024)
    parser.add_argument("--out", required=True)
    parser.add_argument("outputs", nargs="+")
    args = parser.parse_args()
    assert np.__version__.startswith("1."), "GRASP's scores need NumPy 1.x"
    g = load_grasp(args.grasp)
    inputs = {s["id"]: s for s in load_jsonl(args.test)}
    ground_truth = load_jsonl(args.test)
    executor = Executor(args.kg, args.executions)
    fixture = {}
    for path in args.outputs:
        name = os.path.basename(path)
        predictions = load_jsonl(path)
        evaluations = evaluate(g, inputs, predictions, executor, name, args.exact_after)
        # app.py's load_and_process_data: outputs by id
        outputs = {o["id"]: o for o in predictions if o is not None}
        metrics = g["calculate_metrics"](ground_truth, outputs, evaluations)
        questions = {}
        for id, e in evaluations.items():
            q = {"target_size": e["target"]["size"]}
            if e["target"]["err"] is not None:
                q["target_err"] = True
            if "prediction" in e:
                p = e["prediction"]
                q["score"] = p["score"]
                q["size"] = p["size"]
                if p["err"] is not None:
                    q["err"] = True
            q["invalid_evaluation"] = g["is_invalid_evaluation"](e)
            questions[id] = q
        fixture[name] = {
            "metrics": metrics,
            "invalid_outputs": sorted(
                (o["id"] for o in predictions if g["is_invalid_model_output"](o)),
                key=lambda i: (len(i), i),
            ),
            "questions": questions,
        }
    with open(args.out, "w") as f:
        json.dump(fixture, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
