"""Python client of the qajudge service (``qajudge serve``): ``qajudge.Client``.

Standard library only. Every method sends one HTTP request and returns plain
dataclasses; each keeps the server's JSON in ``raw``. Errors of the service
raise :class:`ServiceError` (a :class:`qajudge.QajudgeError`) with its HTTP
status, stable code and message. The client follows no redirect: a token sent
to the server must not reach whatever host a redirect names
(docs/python.md, The HTTP client).
"""

from __future__ import annotations

import json
import mimetypes
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import QajudgeError

__all__ = [
    "Client",
    "ServiceError",
    "Prf",
    "Aggregate",
    "QuestionResult",
    "ExperimentResult",
    "RunResult",
    "Report",
    "MatchReport",
    "SameAs",
    "LabelHit",
    "LabelAnswer",
    "Types",
    "Canonical",
    "Created",
    "Experiment",
]

from ._native import __version__

Json = Dict[str, Any]
#: A document: a path to a file, or a JSON document (a dict or a list).
DocumentLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Sequence[Any]]


class ServiceError(QajudgeError):
    """An error answer of the service: HTTP status, stable code, message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: urllib would send the request's headers, the
    token among them, to the host the redirect names. The service itself
    never redirects an API call."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        raise ServiceError(
            code,
            "redirect_refused",
            f"{req.full_url} answered {code} redirecting to {newurl}; the client follows no "
            "redirect, so that its token goes to no other host: give the server's own URL",
        )


#: The opener of every request: urllib's defaults without redirects.
_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class Prf:
    """Precision, recall and F1."""

    precision: float
    recall: float
    f1: float

    @staticmethod
    def of(j: Optional[Json]) -> Optional["Prf"]:
        if not j:
            return None
        return Prf(float(j["precision"]), float(j["recall"]), float(j["f1"]))


@dataclass
class Aggregate:
    """The aggregate figures of one sub-experiment of one run (docs/scoring.md, Aggregates)."""

    questions: int
    evaluated: int
    answered: int
    empty: int
    missing: int
    errors: int
    micro: Optional[Prf]
    macro: Prf
    macro_qald: Prf
    raw: Json = field(repr=False)

    @staticmethod
    def of(j: Json) -> "Aggregate":
        return Aggregate(
            questions=j["questions"],
            evaluated=j["evaluated"],
            answered=j["answered"],
            empty=j["empty"],
            missing=j["missing"],
            errors=j["errors"],
            micro=Prf.of(j.get("micro")),
            macro=Prf.of(j["macro"]) or Prf(0.0, 0.0, 0.0),
            macro_qald=Prf.of(j["macro_qald"]) or Prf(0.0, 0.0, 0.0),
            raw=j,
        )


@dataclass
class QuestionResult:
    """One question of one sub-experiment of one run."""

    id: str
    status: str
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    raw: Json = field(repr=False)
    question: Optional[str] = None
    diagnostics: List[str] = field(default_factory=list)
    explanation: Optional[Json] = None

    @staticmethod
    def of(j: Json) -> "QuestionResult":
        return QuestionResult(
            j["id"], j["status"], j["tp"], j["fp"], j["fn"],
            j["precision"], j["recall"], j["f1"], j,
            j.get("question"), list(j.get("diagnostics") or []), j.get("explanation"),
        )


@dataclass
class ExperimentResult:
    """One sub-experiment (qa, c2kb, p2kb, re2kb, at, ait2kb, …) of one run."""

    aggregate: Aggregate
    questions: List[QuestionResult]
    breakdown: Json = field(default_factory=dict)

    @staticmethod
    def of(j: Json) -> "ExperimentResult":
        """``breakdown`` maps each ``by`` feature to its values' aggregates."""
        return ExperimentResult(
            Aggregate.of(j["aggregate"]),
            [QuestionResult.of(q) for q in j.get("questions", [])],
            j.get("breakdown") or {},
        )


@dataclass
class Comparison:
    """A paired significance test between two runs on one sub-experiment
    (differences are A − B; ``*_adjusted`` are Holm–Bonferroni adjusted over
    the report's comparisons)."""

    run_a: str
    run_b: str
    experiment: str
    questions: int
    f1_difference: float
    p_f1: float
    p_f1_adjusted: float
    macro_f1_qald_difference: float
    p_macro_f1_qald: float
    p_macro_f1_qald_adjusted: float
    correction: str
    shuffles: int

    @staticmethod
    def of(j: Json) -> "Comparison":
        return Comparison(
            j["run_a"], j["run_b"], j["experiment"], j["questions"],
            j["f1_difference"], j["p_f1"], j.get("p_f1_adjusted", j["p_f1"]),
            j["macro_f1_qald_difference"], j["p_macro_f1_qald"],
            j.get("p_macro_f1_qald_adjusted", j["p_macro_f1_qald"]),
            j.get("correction", ""), j["shuffles"],
        )


@dataclass
class Health:
    """The service's state: ``status`` is ``ok``, or ``degraded`` while the
    experiment store cannot write (``store`` says why and since when)."""

    status: str
    version: str
    benchmarks: int
    experiments: int
    index: Optional[Json]
    knowledge_graph: Optional[Json]
    store: Json
    raw: Json = field(repr=False)

    @staticmethod
    def of(j: Json) -> "Health":
        return Health(
            j["status"], j["version"], j.get("benchmarks", 0), j.get("experiments", 0),
            j.get("index"), j.get("knowledge_graph"), j.get("store") or {}, j,
        )


@dataclass
class RunResult:
    """One run's results; ``experiments`` holds the sub-experiments scored."""

    name: str
    source: str
    experiments: Dict[str, ExperimentResult]

    @staticmethod
    def of(j: Json) -> "RunResult":
        return RunResult(
            j["name"],
            j["source"],
            {k: ExperimentResult.of(v) for k, v in j["experiments"].items() if v is not None},
        )


@dataclass
class Report:
    """A report (docs/report.md)."""

    version: str
    profile: str
    gold: Json
    runs: List[RunResult]
    diagnostics: List[str]
    raw: Json = field(repr=False)
    comparisons: List["Comparison"] = field(default_factory=list)
    index: Optional[Json] = None
    knowledge_graph: Optional[Json] = None

    @staticmethod
    def of(j: Json) -> "Report":
        return Report(
            j["version"], j["profile"], j["gold"],
            [RunResult.of(r) for r in j["runs"]], j.get("diagnostics", []), j,
            [Comparison.of(c) for c in j.get("comparisons") or []],
            j.get("index"), j.get("knowledge_graph"),
        )

    def run(self, name: str) -> RunResult:
        """The run of that name."""
        for r in self.runs:
            if r.name == name:
                return r
        raise KeyError(f"no run {name!r}; the report has {[r.name for r in self.runs]}")


@dataclass
class MatchReport:
    """The match of one question's answer lists."""

    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    explanation: Json
    diagnostics: List[str]
    id: Any = None
    raw: Json = field(default_factory=dict, repr=False)

    @staticmethod
    def of(j: Json) -> "MatchReport":
        return MatchReport(
            j["tp"], j["fp"], j["fn"], j["precision"], j["recall"], j["f1"],
            j.get("explanation", {}), j.get("diagnostics", []), j.get("id"), j,
        )


@dataclass
class SameAs:
    """The owl:sameAs class of one IRI."""

    iri: str
    canonical: str
    class_id: Optional[int]
    class_size: int
    members: List[str]

    @staticmethod
    def of(j: Json) -> "SameAs":
        return SameAs(j["iri"], j["canonical"], j.get("class"), j["class_size"], j["members"])


@dataclass
class LabelHit:
    """An IRI carrying a label."""

    iri: str
    label: str
    lang: str


@dataclass
class LabelAnswer:
    """The IRIs of one label query."""

    text: str
    lang: Optional[str]
    fuzzy: int
    hits: List[LabelHit]


@dataclass
class Types:
    """The classes of one IRI."""

    iri: str
    types: List[str]


@dataclass
class Canonical:
    """The canonical form of one IRI (docs/scoring.md, Sameness)."""

    iri: str
    canonical: str


@dataclass
class Created:
    """A stored experiment just submitted; ``token`` shows it while private.

    ``url`` is its web page with the token after ``#`` (``/experiments/ID#token=…``),
    which browsers never send to the server.
    """

    id: str
    token: str
    status: str
    published: bool
    url: str
    api: str


@dataclass
class Experiment:
    """A stored experiment; ``report`` once it is done."""

    id: str
    status: str
    created: str
    finished: Optional[str]
    profile: str
    gold: str
    runs: List[str]
    published: bool
    error: Optional[str]
    report: Optional[Report]
    lang: str = "en"
    protocol: str = "gerbil"
    experiments: List[str] = field(default_factory=list)

    @staticmethod
    def of(j: Json) -> "Experiment":
        return Experiment(
            j["id"], j["status"], j["created"], j.get("finished"), j["profile"],
            j["gold"], j["runs"], j.get("published", True), j.get("error"),
            Report.of(j["report"]) if j.get("report") else None,
            j.get("lang", "en"), j.get("protocol", "gerbil"), list(j.get("experiments") or []),
        )


def _document(doc: DocumentLike, name: Optional[str] = None) -> Json:
    """A document of the API: ``{name, document}`` for JSON, ``{name, text}``
    for other files (QALD-XML, YAML, JSON Lines)."""
    if isinstance(doc, (str, os.PathLike)):
        path = Path(doc)
        text = path.read_text(encoding="utf-8")
        out: Json = {"name": name or path.name}
        if path.suffix.lower() == ".json":
            out["document"] = json.loads(text)
        else:
            out["text"] = text
        return out
    out = {"document": doc}
    if name:
        out["name"] = name
    return out


class Client:
    """A client of one qajudge server.

    ``token`` is sent as ``Authorization: Bearer`` (an experiment's token, or
    the server's API token), never in the URL: the server refuses a ``?token=``
    (``400 token_in_query``), since URLs end up in logs; ``timeout`` is the
    seconds one call may take.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 120.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- transport ---------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        content_type: Optional[str] = None,
        accept: str = "application/json",
        token: Optional[str] = None,
    ) -> Tuple[str, bytes]:
        headers = {"Accept": accept, "User-Agent": f"qajudge-python/{__version__}"}
        if content_type:
            headers["Content-Type"] = content_type
        bearer = token or self.token
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with _OPENER.open(req, timeout=self.timeout) as r:
                return r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                err = json.loads(raw)["error"]
                raise ServiceError(e.code, err["code"], err["message"]) from None
            except (ValueError, KeyError, TypeError):
                raise ServiceError(e.code, "http_error", raw.decode("utf-8", "replace")) from None

    def _json(self, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        ct = None if body is None else "application/json"
        _, raw = self._request(method, path, data, ct, token=token)
        return json.loads(raw)

    # -- lookups -----------------------------------------------------------

    def health(self) -> Health:
        """The service's status, index, knowledge graph, counts and store."""
        return Health.of(self._json("GET", "/api/v1/health"))

    def sameas(self, iris: Sequence[str], limit: Optional[int] = None) -> List[SameAs]:
        """The owl:sameAs class of each IRI, in order (at most 10,000 per call)."""
        body: Json = {"iris": list(iris)}
        if limit is not None:
            body["limit"] = limit
        return [SameAs.of(j) for j in self._json("POST", "/api/v1/sameas", body)]

    def labels(
        self, texts: Sequence[str], lang: Optional[str] = None, fuzzy: int = 0
    ) -> List[LabelAnswer]:
        """The IRIs carrying each label, in order (at most 1,000 per call)."""
        queries = [{"text": t, "fuzzy": fuzzy, **({"lang": lang} if lang else {})} for t in texts]
        out = []
        for j in self._json("POST", "/api/v1/labels", {"queries": queries}):
            hits = [LabelHit(h["iri"], h["label"], h["lang"]) for h in j["hits"]]
            out.append(LabelAnswer(j["text"], j.get("lang"), j.get("fuzzy", 0), hits))
        return out

    def types(self, iris: Sequence[str]) -> List[Types]:
        """The classes of each IRI, in order."""
        return [Types(j["iri"], j["types"]) for j in self._json("POST", "/api/v1/types", list(iris))]

    def canonical(self, iris: Sequence[str]) -> List[Canonical]:
        """The canonical form of each IRI (no index needed)."""
        return [
            Canonical(j["iri"], j["canonical"])
            for j in self._json("POST", "/api/v1/canonical", list(iris))
        ]

    # -- matching and evaluation ------------------------------------------

    def match(
        self,
        gold: Optional[Sequence[Any]] = None,
        run: Optional[Sequence[Any]] = None,
        *,
        questions: Optional[Sequence[Mapping[str, Any]]] = None,
        profile: Optional[str] = None,
        strict_literals: bool = False,
        lenient_dates: bool = False,
    ) -> Union[MatchReport, List[MatchReport]]:
        """Matches one question's answer lists (``gold``, ``run``), or many
        (``questions=[{"id", "gold", "run"}]``, one report each, in order).
        Answers are SPARQL-results terms (``{"type": "uri", "value": …}``),
        booleans, or plain strings (taken as IRIs when they look like one)."""
        body: Json = {"strict_literals": strict_literals, "lenient_dates": lenient_dates}
        if profile:
            body["profile"] = profile
        if questions is not None:
            body["questions"] = [
                {"id": q["id"], "gold": _terms(q["gold"]), "run": _terms(q["run"])}
                for q in questions
            ]
            j = self._json("POST", "/api/v1/match", body)
            return [MatchReport.of(q) for q in j["questions"]]
        if gold is None or run is None:
            raise ValueError("give gold and run, or questions")
        body["gold"], body["run"] = _terms(gold), _terms(run)
        return MatchReport.of(self._json("POST", "/api/v1/match", body))

    def evaluate(
        self,
        gold: Union[str, DocumentLike],
        runs: Sequence[Union[DocumentLike, Tuple[str, DocumentLike]]],
        *,
        profile: Optional[str] = None,
        experiments: Optional[Sequence[str]] = None,
        explain: bool = False,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> Report:
        """Scores runs against a gold benchmark, synchronously, through the
        CLI's code path. ``gold`` is a registered benchmark's name or a
        document (a path, or a JSON document); each run is a document or a
        ``(name, document)`` pair. Other options of ``POST /evaluate``
        (``strict_literals``, ``lenient_dates``, ``max_class_size``,
        ``gold_markings``, ``lang``, ``refresh_gold``, ``execute_run``,
        ``confidence``, ``by``: a list of question features) pass through."""
        if isinstance(gold, str) and not os.path.exists(gold):
            gold_body: Any = gold
        else:
            gold_body = _document(gold)
        run_bodies = []
        for r in runs:
            if isinstance(r, tuple):
                run_bodies.append(_document(r[1], r[0]))
            else:
                run_bodies.append(_document(r))
        body: Json = {"gold": gold_body, "runs": run_bodies, "explain": explain, **options}
        if profile:
            body["profile"] = profile
        if experiments:
            body["experiments"] = list(experiments)
        if timeout_ms:
            body["timeout_ms"] = timeout_ms
        return Report.of(self._json("POST", "/api/v1/evaluate", body))

    # -- stored experiments -------------------------------------------------

    def submit(
        self,
        runs: Sequence[Union[str, "os.PathLike[str]"]] = (),
        *,
        benchmark: Optional[str] = None,
        gold: Optional[Union[str, "os.PathLike[str]"]] = None,
        system_urls: Sequence[str] = (),
        profile: Optional[str] = None,
        experiments: Optional[Sequence[str]] = None,
        publish: bool = False,
        protocol: Optional[str] = None,
        dataset: Optional[str] = None,
        lang: Optional[str] = None,
        refresh_gold: bool = False,
        execute_run: bool = False,
        names: Sequence[str] = (),
        confidence: bool = False,
        by: Sequence[str] = (),
    ) -> Created:
        """Stores an experiment (private until published, unless ``publish``)
        and queues it; the answer's ``token`` shows it while private.

        ``protocol`` is how live systems are asked (``gerbil`` or
        ``text2sparql``; by default the server's, text2sparql for a TEXT2SPARQL
        benchmark or profile), ``dataset`` the id sent to text2sparql systems,
        ``lang`` the language of the questions sent; ``refresh_gold`` and
        ``execute_run`` execute every gold or run query on the server's
        knowledge graph. ``names`` names the runs in order (run files, then
        system URLs), ``confidence`` adds 95 % bootstrap intervals, ``by``
        splits every aggregate by question features."""
        fields: List[Tuple[str, Optional[str], bytes]] = []
        if benchmark:
            fields.append(("benchmark", None, benchmark.encode()))
        if gold:
            fields.append(("gold", Path(gold).name, Path(gold).read_bytes()))
        for r in runs:
            fields.append(("run", Path(r).name, Path(r).read_bytes()))
        for u in system_urls:
            fields.append(("system_url", None, u.encode()))
        if profile:
            fields.append(("profile", None, profile.encode()))
        if experiments:
            fields.append(("experiments", None, ",".join(experiments).encode()))
        if publish:
            fields.append(("publish", None, b"true"))
        if protocol:
            fields.append(("protocol", None, protocol.encode()))
        if dataset:
            fields.append(("dataset", None, dataset.encode()))
        if lang:
            fields.append(("lang", None, lang.encode()))
        if refresh_gold:
            fields.append(("refresh_gold", None, b"true"))
        if execute_run:
            fields.append(("execute_run", None, b"true"))
        # a single string is one name or feature, not its characters
        for n in [names] if isinstance(names, str) else names:
            fields.append(("name", None, n.encode()))
        if confidence:
            fields.append(("confidence", None, b"true"))
        for b in [by] if isinstance(by, str) else by:
            fields.append(("by", None, b.encode()))
        boundary = uuid.uuid4().hex
        body = bytearray()
        for name, filename, data in fields:
            body += f"--{boundary}\r\n".encode()
            disposition = f'form-data; name="{name}"'
            if filename:
                ct = mimetypes.guess_type(filename)[0] or "application/octet-stream"
                body += f'Content-Disposition: {disposition}; filename="{filename}"\r\nContent-Type: {ct}\r\n\r\n'.encode()
            else:
                body += f"Content-Disposition: {disposition}\r\n\r\n".encode()
            body += data + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        _, raw = self._request(
            "POST", "/api/v1/experiments", bytes(body), f"multipart/form-data; boundary={boundary}"
        )
        j = json.loads(raw)
        return Created(j["id"], j["token"], j["status"], j["published"], j["url"], j["api"])

    def experiment(self, id: str, token: Optional[str] = None) -> Experiment:
        """A stored experiment (a private one needs its token)."""
        return Experiment.of(self._json("GET", f"/api/v1/experiments/{id}", token=token))

    def wait(self, id: str, token: Optional[str] = None, timeout: float = 600.0) -> Experiment:
        """Polls a stored experiment until it is done or failed."""
        import time

        start = time.monotonic()
        while True:
            e = self.experiment(id, token)
            if e.status in ("done", "failed"):
                return e
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"experiment {id} is still {e.status} after {timeout} s")
            time.sleep(0.2)

    def experiments(self) -> List[Json]:
        """The published experiments, newest first."""
        return self._json("GET", "/api/v1/experiments")

    def leaderboard(self, benchmark: str, sort: Optional[str] = None) -> Json:
        """The published runs on a registered benchmark, best first by
        ``sort`` (``macro_f1`` by default, ``macro_f1_qald``, ``micro_f1`` or
        ``created``)."""
        path = f"/api/v1/benchmarks/{urllib.parse.quote(benchmark, safe='')}/leaderboard"
        if sort:
            path += "?sort=" + urllib.parse.quote(sort, safe="")
        return self._json("GET", path)

    def publish(self, id: str, token: Optional[str] = None) -> Json:
        """Makes an experiment public (listed, in ``/sparql``)."""
        return self._json("POST", f"/api/v1/experiments/{id}/publish", token=token)

    def rdf(self, id: str, accept: str = "text/turtle", token: Optional[str] = None) -> str:
        """A stored experiment as RDF (W3C Data Cube), in the syntax asked for."""
        _, raw = self._request("GET", f"/experiments/{id}", accept=accept, token=token)
        return raw.decode("utf-8")

    def sparql(self, query: str) -> Json:
        """Runs a query on the published experiments; the SPARQL results JSON."""
        body = urllib.parse.urlencode({"query": query}).encode()
        _, raw = self._request(
            "POST", "/sparql", body, "application/x-www-form-urlencoded",
            accept="application/sparql-results+json",
        )
        return json.loads(raw)

    def openapi(self) -> Json:
        """The OpenAPI 3.1 document of the service."""
        return self._json("GET", "/api/v1/openapi.json")


def _terms(answers: Sequence[Any]) -> List[Any]:
    """Answers as the API takes them: plain strings become IRIs when they look
    like one, else plain literals."""
    out: List[Any] = []
    for a in answers:
        if isinstance(a, str):
            kind = "uri" if "://" in a or a.startswith("urn:") else "literal"
            out.append({"type": kind, "value": a})
        else:
            out.append(a)
    return out
