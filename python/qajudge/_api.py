"""The judge in process: ``evaluate`` and its ``Report``, ``check``,
``features`` and ``sample``, each the command of the same name with the same
options (docs/python.md). Options are the command line's long options with
``_`` for ``-``, each value checked against the kind the command declares (a
flag a bool, a number an int, a repeatable option a text or an iterable of
texts, a language a BCP 47 tag) before any work: ``None`` leaves an option
at the command's default. Every call but ``check`` works on a thread of its
own that a Ctrl-C stops."""

from __future__ import annotations

import difflib
import html
import inspect
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import JobError, QajudgeWarning, UsageError

__all__ = ["Report", "evaluate", "check", "features", "sample", "audit", "refresh", "index_build", "index_fetch"]

PathLike = Union[str, "os.PathLike[str]"]
#: A run: a file, or the run itself as read from a file of any format qajudge
#: reads (``json.load``'s list or dict, JSON Lines records as a list of dicts),
#: detected from the content exactly as the file's would be.
RunLike = Union[PathLike, Sequence[Mapping[str, Any]], Mapping[str, Any]]

_OPTIONS: Dict[str, Dict[str, bool]] = {}


def _options(command: str) -> Dict[str, bool]:
    """The command's options: name → is a flag."""
    if command not in _OPTIONS:
        _OPTIONS[command] = dict(_native.options(command))
    return _OPTIONS[command]


def _no_such_keyword(function: str, given: str, known: Sequence[str]) -> str:
    """The message of a keyword ``function`` does not take: the nearest one
    it does take, else where its keywords are listed."""
    near = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    if near:
        return f"{function}() has no option {given!r}; did you mean {near[0]!r}?"
    return (f"{function}() has no option {given!r}; see help(qajudge.{function}) "
            "or docs/python.md for its options")


def _text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _argv(command: str, options: Mapping[str, Any], taken: Iterable[str] = ()) -> List[str]:
    """The command line of ``options`` (``None`` values left out), each value
    checked against its option's kind as :func:`evaluate`'s are (a flag a
    bool, a number an int, a list option a text or an iterable of at most
    ``_native._MAX_ITEMS`` texts, ``lang`` a BCP 47 tag): a value of another
    kind is a :class:`UsageError` naming the keyword and the value, and an
    option the command does not have names the ones it has."""
    known = _options(command)
    refused = set(taken)
    for name in options:
        if name not in known or name in refused:
            names = sorted(n for n in known if n not in refused)
            raise UsageError(_no_such_keyword(command.replace(" ", "_"), name, names))
    return list(_native.arguments(command, {k: v for k, v in options.items() if v is not None}))


def _bounded(keyword: str, items: Iterable[Any]) -> List[Any]:
    """The items of an iterable given for ``keyword``, at most
    ``_native._MAX_ITEMS`` of them: more is a :class:`UsageError` naming the
    keyword (an endless iterable would fill the memory)."""
    out: List[Any] = []
    for item in items:
        if len(out) == _native._MAX_ITEMS:
            raise UsageError(
                f"{keyword}= gives more than {_native._MAX_ITEMS} items (an endless iterable?): "
                f"give a list of at most {_native._MAX_ITEMS}"
            )
        out.append(item)
    return out


def _is_path(run: Any) -> bool:
    return isinstance(run, (str, os.PathLike))


def _stem(path: str) -> str:
    return Path(path).stem or path


def evaluate(
    gold: Optional[PathLike] = None,
    runs: Union[Sequence[Union[RunLike, Tuple[str, RunLike]]], Mapping[str, RunLike]] = (),
    profile: str = "judge",
    index: Optional[PathLike] = None,
    kg: Optional[Union[PathLike, Sequence[PathLike]]] = None,
    endpoint: Optional[str] = None,
    experiments: Optional[Union[str, Sequence[str]]] = None,
    lang: Optional[str] = None,
    by: Optional[Union[str, Sequence[str]]] = None,
    confidence: Optional[bool] = None,
    baseline: Optional[str] = None,
    abstain_marker: Optional[str] = None,
    llm_judge: Optional[str] = None,
    llm_model: Optional[str] = None,
    llm_key_env: Optional[str] = None,
    llm_cache: Optional[PathLike] = None,
    *,
    name: Optional[Sequence[str]] = None,
    gold_answers: Optional[PathLike] = None,
    ontology: Optional[PathLike] = None,
    train: Optional[PathLike] = None,
    questions: Optional[PathLike] = None,
    sample: Optional[PathLike] = None,
    system_url: Optional[Union[str, Sequence[Union[str, Tuple[str, str]]]]] = None,
    strict_literals: Optional[bool] = None,
    lenient_dates: Optional[bool] = None,
    wordnet: Optional[PathLike] = None,
    gold_markings: Optional[str] = None,
    fetch_index: Optional[Union[str, Sequence[str]]] = None,
    explain: Optional[Union[bool, str]] = None,
    explain_failures: Optional[bool] = None,
    audit: Optional[bool] = None,
    max_class_size: Optional[int] = None,
    query_timeout_ms: Optional[int] = None,
    max_rows: Optional[int] = None,
    max_query_memory_mb: Optional[int] = None,
    refresh_gold: Optional[bool] = None,
    execute_run: Optional[bool] = None,
    timeout_ms: Optional[int] = None,
    concurrency: Optional[int] = None,
    max_error_rate: Optional[float] = None,
    protocol: Optional[str] = None,
    dataset: Optional[str] = None,
    retries: Optional[int] = None,
    retry_backoff_ms: Optional[int] = None,
    cache: Optional[PathLike] = None,
    llm_refresh: Optional[bool] = None,
    llm_queries: Optional[bool] = None,
    llm_timeout: Optional[int] = None,
    llm_max_calls: Optional[int] = None,
    llm_deadline: Optional[int] = None,
    max_input_mb: Optional[int] = None,
    progress: Optional[Any] = None,
    **unknown: Any,
) -> "Report":
    """Scores runs against a gold benchmark: ``qajudge evaluate`` in process.

    ``gold`` and files are paths; each run is a file, the run itself as read
    from a file (``json.load``'s list or dict, or a JSON Lines file's records
    as a list of dicts: its format detected exactly as the file's), or a
    ``(name, run)`` pair; ``runs`` may also map names to runs. A run given as
    an object without a name is named ``run1``, ``run2``, … by its position.
    Every other keyword is the command's option of the same name (``-`` as
    ``_``, docs/cli.md), typed: a flag is a bool, a number an int, a
    repeatable option a text or a list of texts; a value of the wrong type is
    a :class:`UsageError` naming the keyword and the value. The GIL is
    released while the evaluation runs.

    ``experiments="query"`` adds the query measures (validity, execution,
    invented IRIs, BLEU, SP-F1, algebra equivalence); ``profile="t2s-metrics"``
    T2S-Metrics' measures under its names (``wordnet=`` names the WordNet 3.0
    directory its ``meteor`` reads, else NLTK's and Debian's places are
    looked in); ``abstain_marker`` the answer text
    that declares an abstention; ``llm_judge`` (a chat-completions server's
    base URL) with ``llm_model`` asks a language model about free-text answers
    no string rule matched, the key read from the environment variable
    ``llm_key_env``, every verdict cached in ``llm_cache`` (docs/scoring.md,
    The LLM judge). Nothing is sent to a model without ``llm_judge``.

    ``progress`` follows a long evaluation: a callable given ``(done,
    total)`` as live systems are asked and queries executed, or a tqdm bar
    (its ``total`` set and ``update`` called). Its exception stops the
    evaluation and is raised."""
    if "format" in unknown or "per_question" in unknown:
        raise UsageError(
            "evaluate() returns a Report; format it with to_dict(), to_latex(), "
            "to_markdown() or to_table(per_question=True) instead of format= or per_question="
        )
    if unknown:
        known = [n for n in inspect.signature(evaluate).parameters if n != "unknown"]
        raise UsageError(_no_such_keyword("evaluate", sorted(unknown)[0], known))
    if _is_path(runs) and gold is not None and not _is_path(gold):
        raise UsageError(
            "gold= and runs= look swapped: gold= takes the benchmark (one path) and runs= "
            "a list of runs; call evaluate(gold, [run, ...])"
        )
    with tempfile.TemporaryDirectory(prefix="qajudge-gold-") as scratch:
        gold = _gold_file(gold, Path(scratch))
        return _evaluate(**{k: v for k, v in locals().items() if k not in ("unknown", "scratch")})


def _gold_file(gold: Any, scratch: Path) -> Any:
    """The path of the gold: a path as given; a gold given as an object (a
    dict or list as ``json.load`` reads a benchmark, or a benchmark's text
    such as a YAML document) written into ``scratch`` as a file of that
    content, which the evaluation reads and detects as it would the file."""
    if gold is None or (_is_path(gold) and not (isinstance(gold, str) and "\n" in gold)):
        return gold
    if isinstance(gold, (bytes, str)):
        data = gold if isinstance(gold, bytes) else gold.encode("utf-8")
        # JSON (and JSON Lines) text opens with a bracket; the other benchmark
        # texts given inline are YAML (TEXT2SPARQL's), read as its files are
        path = scratch / ("gold.json" if data.lstrip()[:1] in (b"{", b"[") else "gold.yaml")
        path.write_bytes(data)
        return path
    if isinstance(gold, Mapping) or (isinstance(gold, Sequence) and not isinstance(gold, (str, bytes))):
        path = scratch / "gold.json"
        path.write_text(json.dumps(gold if isinstance(gold, Mapping) else list(gold), ensure_ascii=False))
        return path
    raise UsageError(
        f"gold= is a {type(gold).__name__}: give a path, a benchmark as read from its file "
        "(a dict or list, e.g. json.load's) or its text (a YAML document)"
    )


def _evaluate(**kwargs: Any) -> "Report":
    """:func:`evaluate` once its gold is a path."""
    runs, name, progress, baseline = kwargs["runs"], kwargs["name"], kwargs["progress"], kwargs["baseline"]
    explain, system_url = kwargs["explain"], kwargs["system_url"]
    given = {k: v for k, v in kwargs.items() if k not in ("runs", "name", "unknown", "progress")}
    if isinstance(explain, bool):
        given["explain"] = "all" if explain else None
    options = {k: v for k, v in given.items() if v is not None}
    systems = _systems(system_url)
    if systems is not None:
        options["system_url"] = [url for _, url in systems]
    paths, names, read = _runs(runs, name, force=systems is not None)
    if systems is not None:
        if name is not None:
            raise UsageError("name= and (name, url) pairs in system_url= both name the live systems: give one")
        urls = [url for _, url in systems]
        names = names + [label or _system_name(url, urls) for label, url in systems]
    native = _native.evaluate(options, paths, names, read, _progress_callable(progress))
    report = Report(native, baseline)
    # diagnostics of warning severity reach Python's warnings too
    for d in report.diagnostics:
        if "warning: " in d:
            warnings.warn(d, QajudgeWarning, stacklevel=3)
    return report


def _progress_callable(progress: Any) -> Optional[Any]:
    """``progress`` as a callable of ``(done, total)``: a tqdm bar is updated
    by the difference since the last call."""
    if progress is None:
        return None
    if hasattr(progress, "update") and hasattr(progress, "total"):
        bar = progress
        seen = [0]

        def tell(done: int, total: int) -> None:
            if bar.total != total:
                bar.total = total
                if hasattr(bar, "refresh"):
                    bar.refresh()
            if done >= seen[0]:
                bar.update(done - seen[0])
            seen[0] = done

        return tell
    if callable(progress):
        return progress
    raise UsageError(f"progress={progress!r}: expected a callable of (done, total) or a tqdm bar")


def _systems(system_url: Any) -> Optional[List[Tuple[Optional[str], str]]]:
    """The live systems of ``system_url=`` as ``(name or None, url)`` when one
    is given as a ``(name, url)`` pair; ``None`` when every one is a URL
    (the command line names them)."""
    if system_url is None or isinstance(system_url, str):
        return None
    items = _bounded("system_url", system_url)
    if not any(isinstance(s, tuple) for s in items):
        return None
    out: List[Tuple[Optional[str], str]] = []
    for i, s in enumerate(items):
        if isinstance(s, tuple) and len(s) == 2 and all(isinstance(x, str) for x in s):
            out.append((s[0], s[1]))
        elif isinstance(s, str):
            out.append((None, s))
        else:
            raise UsageError(f"system_url[{i}] is {repr(s)[:200]}: give a URL or a (name, url) pair")
    return out


def _system_name(url: str, urls: Sequence[str]) -> str:
    """A live system's default name, as the command line gives it: its host,
    with its port when another system shares the host, else its URL."""
    from urllib.parse import urlsplit

    def authority(u: str) -> Optional[Tuple[str, Optional[int]]]:
        try:
            parts = urlsplit(u)
            port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        except ValueError:
            return None
        return (parts.hostname, port) if parts.hostname else None

    mine = authority(url)
    if mine is None:
        return url
    others = [a for a in (authority(u) for u in urls if u != url) if a is not None]
    if all(h != mine[0] for h, _ in others):
        return mine[0]
    if mine not in others and mine[1] is not None:
        return f"{mine[0]}:{mine[1]}"
    return url


def _runs(
    runs: Union[Sequence[Union[RunLike, Tuple[str, RunLike]]], Mapping[str, RunLike]],
    given_names: Optional[Sequence[str]],
    force: bool = False,
) -> Tuple[List[str], List[str], List[Tuple[int, str, bytes]]]:
    """The run files (a placeholder ``NAME.json`` for a run given as an
    object), their names (empty: the command's default names, unless
    ``force`` asks for every one) and the runs given as objects, as
    ``(position, name, JSON bytes)``."""
    items: List[Tuple[Optional[str], Any]] = []
    if isinstance(runs, Mapping):
        items = [(str(k), v) for k, v in _bounded("runs", runs.items())]
    else:
        if _is_path(runs):
            raise UsageError("runs= takes a list of runs; give [path] for one file")
        for r in _bounded("runs", runs):
            if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], str):
                items.append((r[0], r[1]))
            else:
                items.append((None, r))
    paths: List[str] = []
    names: List[str] = []
    read: List[Tuple[int, str, bytes]] = []
    for i, (label, run) in enumerate(items):
        if _is_path(run):
            paths.append(os.fspath(run))
            names.append(label or "")
            continue
        # the object's JSON is read as a file of that content is: its format
        # detected from it (a list of JSON Lines records as those lines)
        if isinstance(run, Mapping):
            document: Any = dict(run)
        elif isinstance(run, Sequence) and not isinstance(run, (str, bytes)):
            document = list(run)
        else:
            raise UsageError(
                f"runs[{i}] is a {type(run).__name__}: give a path, a run as read from "
                "its file (a list or dict, e.g. json.load's), or a (name, run) pair"
            )
        label = label or f"run{i + 1}"
        names.append(label)
        # the run's placeholder path names it: its stem is the run's name
        paths.append(f"{label}.json")
        read.append((i, label, json.dumps(document, ensure_ascii=False).encode("utf-8")))
    if given_names is not None:
        if isinstance(given_names, str):
            given_names = [given_names]
        return paths, [str(n) for n in _bounded("name", given_names)], read
    if not force and not any(label for label, _ in items):
        return paths, [], read
    # names for every run, the command line's default where none was given
    for i in range(len(items)):
        if names[i]:
            continue
        stem = _stem(paths[i])
        shared = sum(1 for p in paths if _stem(p) == stem) > 1
        parent = Path(paths[i]).parent.name
        names[i] = f"{parent}/{stem}" if shared and parent else stem
    return paths, names, read


#: The keys of a question's report that are times measured while evaluating
#: (not figures: ``reproduce`` does not compare them either).
_MEASURED = ("ms", "load_ms")


def _profile_splits(path: str, value: Any) -> List[Tuple[str, str, Dict[str, Any]]]:
    """The splits inside an aggregate (its ``by_FEATURE`` objects of objects,
    such as ``challenge.by_language``), as ``(where, feature, {value:
    figures})``, in the report's order."""
    out: List[Tuple[str, str, Dict[str, Any]]] = []
    if not isinstance(value, dict):
        return out
    for k, v in value.items():
        if k.startswith("by_") and isinstance(v, dict) and all(isinstance(x, dict) for x in v.values()):
            out.append((path or "aggregate", k[3:], v))
        elif isinstance(v, dict):
            out.extend(_profile_splits(f"{path}.{k}" if path else k, v))
    return out


def _flatten(prefix: str, value: Any, out: Dict[str, Any], sep: str = "_") -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}{sep}{k}" if prefix else k, v, out, sep)
    else:
        out[prefix] = value


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _frame(rows: List[Dict[str, Any]]) -> Any:
    """A pandas DataFrame of the rows when pandas is installed, else the rows.
    A column of counts (every value given an int) stays integers, a row that
    lacks it counting 0 (the report leaves out a count it has nothing for),
    never NaN."""
    counts = {k for r in rows for k, v in r.items() if _is_count(v)}
    counts -= {k for r in rows for k, v in r.items() if v is not None and not _is_count(v)}
    for r in rows:
        for k in counts:
            if r.get(k) is None:
                r[k] = 0
    try:
        import pandas
    except ImportError:
        return rows
    frame = pandas.DataFrame(rows)
    for k in counts:
        frame[k] = frame[k].astype("int64")
    return frame


def _cell(v: Any) -> str:
    """A table cell: an integer as an integer, a number to 4 decimals
    (a cost as ``0.0034``, never ``0.0034000000000000002``), NaN and None
    blank."""
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if _is_count(v):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4f}"
    if hasattr(v, "item"):  # a numpy scalar from a DataFrame
        return _cell(v.item())
    return html.escape(str(v))


class Report:
    """The report of :func:`evaluate`: the JSON report of
    ``evaluate --format json`` (docs/report.md) and the command's other
    formats."""

    def __init__(self, native: Any, baseline: Optional[str] = None) -> None:
        self._native = native
        self._baseline = baseline
        self._dict: Optional[Dict[str, Any]] = None

    def _data(self) -> Dict[str, Any]:
        if self._dict is None:
            self._dict = json.loads(self._native.to_json())
        return self._dict

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report, exactly as ``evaluate --format json`` prints it (a
        new dict at each call)."""
        return json.loads(self._native.to_json())

    def to_json(self) -> str:
        """The JSON report as text, as ``evaluate --format json`` prints it."""
        return str(self._native.to_json()) + "\n"

    @property
    def runs(self) -> List[str]:
        """The runs' names, in order."""
        return [r["name"] for r in self._data()["runs"]]

    @property
    def diagnostics(self) -> List[str]:
        """Problems of the gold and runs that did not stop the evaluation."""
        return list(self._data()["diagnostics"])

    def _headline(self) -> List[Tuple[str, List[Tuple[str, Optional[float]]]]]:
        return [(run, [(k, v) for k, v in figures]) for run, figures in json.loads(self._native.headline_json())]

    def headline(self) -> Any:
        """The figures the profile reads first, one row per run: ``set_F``,
        ``nDCG`` and ``set_F+nDCG`` under ``text2sparql``, the official
        script's figures under a benchmark's profile, ``Macro F1 QALD``,
        ``macro F1`` and ``micro F1`` under the QALD profiles. A pandas
        DataFrame when pandas is installed, else a list of dicts.

        Raises :class:`JobError` when no run has a headline figure: no QA
        experiment was run, or no question could be evaluated (every one set
        apart as unstable or not evaluable), so that an empty frame is never
        read as a result."""
        rows = self._headline()
        if not any(v is not None for _, figures in rows for _, v in figures):
            d = self._data()
            if not rows and d.get("unstable"):
                why = ("no question could be evaluated: every question of the gold is marked "
                       "unstable, and those are scored apart (report.to_dict()[\"unstable\"])")
            elif not rows:
                why = "the report has no QA experiment (experiments=" + repr(sorted(
                    {name for r in d["runs"] for name, x in r["experiments"].items() if x is not None}
                )) + "); add \"qa\" to experiments= for answer figures"
            else:
                why = ("no question of any run could be evaluated under profile " + repr(d["profile"])
                       + "; per_question() gives each question's status and .diagnostics says why")
            raise JobError("no headline figure: " + why)
        return _frame([{"run": run, **dict(figures)} for run, figures in rows])

    def aggregates(self, experiment: Optional[str] = None) -> Any:
        """One row per run and sub-experiment (only ``experiment``'s when
        given): ``run``, ``experiment``, the profile's headline figures (QA
        rows; see :meth:`headline`), then the aggregate's figures, nested
        ones joined by ``_`` (``micro_f1``, ``macro_qald_f1``, …). A pandas
        DataFrame when pandas is installed, else a list of dicts."""
        headline = dict(self._headline())
        rows: List[Dict[str, Any]] = []
        for run in self._data()["runs"]:
            for name, x in run["experiments"].items():
                if x is None or (experiment is not None and name != experiment):
                    continue
                row: Dict[str, Any] = {"run": run["name"], "experiment": name}
                if name == "qa":
                    row.update(headline.get(run["name"], []))
                _flatten("", x["aggregate"], row)
                rows.append(row)
        return _frame(rows)

    def per_question(self, experiment: str = "qa", run: Optional[str] = None) -> Any:
        """One row per question of ``experiment``, for the run named ``run``
        (every run when ``None``): ``run``, ``id``, ``question`` (the text),
        ``status``, ``tp``, ``fp``, ``fn``, ``precision``, ``recall``, ``f1``,
        … as the report has them, nested figures flattened into columns
        joined by ``.`` (``official.bleu``, ``usage.latency_ms``,
        ``gold_execution.status``). Times measured while evaluating (how long
        a query took to execute) are in :meth:`timings`, not here: two
        evaluations of the same inputs give equal frames. A pandas DataFrame
        when pandas is installed, else a list of dicts."""
        return self._questions(experiment, run, timings=False)

    def timings(self, experiment: str = "qa", run: Optional[str] = None) -> Any:
        """The times measured while evaluating, one row per question (as
        :meth:`per_question`): ``run``, ``id``, then each measured time in
        milliseconds (``execution.ms``, ``gold_execution.ms``). They differ
        from one evaluation to the next, so :meth:`per_question` leaves
        them out."""
        return self._questions(experiment, run, timings=True)

    def _questions(self, experiment: str, run: Optional[str], timings: bool) -> Any:
        runs = self._data()["runs"]
        if run is not None and run not in [r["name"] for r in runs]:
            raise KeyError(f"no run {run!r}; the report has {[r['name'] for r in runs]}")
        rows: List[Dict[str, Any]] = []
        for r in runs:
            if run is not None and r["name"] != run:
                continue
            x = r["experiments"].get(experiment)
            if x is None:
                continue
            for q in x["questions"]:
                row: Dict[str, Any] = {"run": r["name"], "id": q["id"], "question": q.get("question")}
                for k, v in q.items():
                    if k not in row:
                        _flatten(k, v, row, ".")
                measured = [k for k in row if k.rsplit(".", 1)[-1] in _MEASURED]
                if timings:
                    row = {"run": row["run"], "id": row["id"], **{k: row[k] for k in measured}}
                else:
                    for k in measured:
                        del row[k]
                rows.append(row)
        return _frame(rows)

    def breakdown(self, experiment: str = "qa") -> Any:
        """The aggregates split by question feature: one row per run,
        ``of``, feature and value, then the figures (joined by ``_``, as
        :meth:`aggregates`). ``of`` is ``"aggregate"`` for the splits
        ``evaluate(by=...)`` asked for (every figure of the aggregate), else
        the part of the aggregate whose own split it is — the profile's, such
        as ``"challenge"`` for TEXT2SPARQL's figures by language, which every
        evaluation under that profile has."""
        rows: List[Dict[str, Any]] = []
        for r in self._data()["runs"]:
            x = r["experiments"].get(experiment) or {}
            for feature, values in (x.get("breakdown") or {}).items():
                for value, aggregate in values.items():
                    row: Dict[str, Any] = {"run": r["name"], "of": "aggregate", "feature": feature, "value": value}
                    _flatten("", aggregate, row)
                    rows.append(row)
            for of, feature, values in _profile_splits("", x.get("aggregate") or {}):
                for value, figures in values.items():
                    row = {"run": r["name"], "of": of, "feature": feature, "value": value}
                    _flatten("", figures, row)
                    rows.append(row)
        return _frame(rows)

    def comparisons(self) -> Any:
        """The paired significance tests between runs (docs/scoring.md,
        Comparing runs): one row per experiment and pair of runs."""
        rows: List[Dict[str, Any]] = []
        for c in self._data().get("comparisons") or []:
            row: Dict[str, Any] = {}
            _flatten("", c, row)
            rows.append(row)
        return _frame(rows)

    def judge(self) -> Any:
        """The LLM judge's table (``llm_judge=``): one row per run with its
        verdicts, the answers matched, the questions changed and the
        agreement with exact match. Empty without the judge."""
        rows: List[Dict[str, Any]] = []
        for r in self._data()["runs"]:
            if r.get("llm_judge") is None:
                continue
            row: Dict[str, Any] = {"run": r["name"]}
            _flatten("", r["llm_judge"], row)
            rows.append(row)
        return _frame(rows)

    def _baseline_of(self, baseline: Optional[str]) -> Optional[str]:
        """``baseline`` (else :func:`evaluate`'s), which must name a run."""
        chosen = baseline or self._baseline
        if chosen is not None and chosen not in self.runs:
            raise UsageError(f"baseline={chosen!r} names no run; the runs are {self.runs}")
        return chosen

    def to_latex(
        self, baseline: Optional[str] = None, caption: Optional[str] = None, label: Optional[str] = None
    ) -> str:
        """The tables of ``--format latex`` (booktabs), one per sub-experiment
        the report holds, marked against ``baseline`` (by default the one
        :func:`evaluate` was given; one that names no run is a
        :class:`UsageError`). ``caption`` is a lone table's caption, or the
        start of each table's (``Caption (QA)``); ``label`` its ``\\label``
        (``label:qa`` for each of several). By default the caption names the
        sub-experiment and the gold's file name."""
        return str(self._native.to_latex(self._baseline_of(baseline), caption, label))

    def to_markdown(self, baseline: Optional[str] = None) -> str:
        """The tables of ``--format markdown``."""
        return str(self._native.to_markdown(self._baseline_of(baseline)))

    def to_table(self, per_question: bool = False) -> str:
        """The text table ``evaluate`` prints by default."""
        return str(self._native.to_table(per_question))

    def __str__(self) -> str:
        return self.to_table()

    def __repr__(self) -> str:
        d = self._data()
        return (
            f"<qajudge.Report profile={d['profile']} gold={d['gold']['path']!r} "
            f"({d['gold']['questions']} questions) runs={self.runs}>"
        )

    #: The columns of the HTML table, per sub-experiment: QA's (and the
    #: markings experiments'), then the query experiment's; each shown only
    #: when some run has it. The LLM-era figures follow QA's.
    _COLUMNS: Tuple[Tuple[str, str], ...] = (
        ("evaluated", "eval"),
        ("answered", "answered"),
        ("empty", "empty"),
        ("missing", "missing"),
        ("extra", "extra"),
        ("errors", "errors"),
        ("micro_precision", "micro P"),
        ("micro_recall", "micro R"),
        ("micro_f1", "micro F1"),
        ("macro_precision", "macro P"),
        ("macro_recall", "macro R"),
        ("macro_f1", "macro F1"),
        ("macro_qald_f1", "Macro F1 QALD"),
        ("abstained", "abstained"),
        ("truthfulness", "truth"),
        ("usage_latency_ms_mean", "latency ms"),
        ("usage_cost_total", "cost"),
    )
    _QUERY_COLUMNS: Tuple[Tuple[str, str], ...] = (
        ("questions", "questions"),
        ("answered", "answered"),
        ("run_queries", "queries"),
        ("parses", "parses"),
        ("parse_rate", "parse rate"),
        ("executed", "executed"),
        ("unknown_iri_rate", "unknown IRIs"),
        ("bleu", "BLEU"),
        ("sp_f1", "SP-F1"),
        ("bleu_answered", "BLEU (answered)"),
        ("sp_f1_answered", "SP-F1 (answered)"),
        ("equivalent_rate", "equivalent"),
    )

    def _repr_html_(self) -> str:
        """For Jupyter: the profile's headline figures, then a table per
        sub-experiment with its own columns, then the LLM judge's verdicts."""
        d = self._data()
        parts = [self._headline_html(d)]
        experiments: List[str] = []
        for run in d["runs"]:
            for name, x in run["experiments"].items():
                if x is not None and name not in experiments:
                    experiments.append(name)
        gold = Path(d["gold"]["path"]).name or d["gold"]["path"]
        for name in experiments:
            rows = self.aggregates(name)
            if not isinstance(rows, list):
                rows = rows.to_dict("records")
            spec = self._QUERY_COLUMNS if name == "query" else self._COLUMNS
            columns = [(k, h) for k, h in spec if any(_cell(r.get(k)) != "" for r in rows)]
            caption = f"{name.upper()} on {gold} ({d['gold']['questions']} questions), profile {d['profile']}"
            parts.append(_html_table("qajudge-report", caption, ["run"] + [h for _, h in columns],
                                     [[r["run"]] + [r.get(k) for k, _ in columns] for r in rows]))
        judged = [r for r in d["runs"] if r.get("llm_judge")]
        if judged:
            verdicts = sorted({k for r in judged for k in (r["llm_judge"].get("answers") or {})})
            parts.append(_html_table(
                "qajudge-judge", f"the LLM judge ({judged[0]['llm_judge'].get('model', '')})",
                ["run"] + verdicts + ["matched", "questions changed"],
                [[r["name"]] + [(r["llm_judge"].get("answers") or {}).get(v) for v in verdicts]
                 + [r["llm_judge"].get("matched"), r["llm_judge"].get("questions_changed")] for r in judged],
            ))
        return "".join(parts)

    def _headline_html(self, d: Dict[str, Any]) -> str:
        headline = self._headline()
        names = [k for k, _ in headline[0][1]] if headline else []
        if not names:
            return ""
        return _html_table("qajudge-headline", f"{d['profile']}: headline figures", ["run"] + names,
                           [[run] + [v for _, v in figures] for run, figures in headline])


def _html_table(css: str, caption: str, head: List[str], rows: List[List[Any]]) -> str:
    """An HTML table, every text escaped, every number as :func:`_cell` writes it."""
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in rows
    )
    return (
        f"<table class=\"{css}\"><caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"
    )


def check(path: PathLike) -> Dict[str, Any]:
    """What ``qajudge check FILE`` says of a file: ``usable``, ``format``,
    ``questions``, ``with_answers``, ``problems``, ``unknown_keys``,
    ``answers_lost``, …; a file that cannot be read has ``usable`` false and
    ``problem`` (with ``line`` and ``column`` when the reader located it)."""
    return dict(json.loads(_native.check(os.fspath(path))))


def features(gold: PathLike, lang: str = "en", index: Optional[PathLike] = None, **options: Any) -> List[Dict[str, Any]]:
    """The question and query features of every question of a benchmark, as
    ``qajudge features --format json`` prints them (docs/features.md)."""
    args = _argv("features", {"gold": gold, "lang": lang, "index": index, **options}, taken=("format",))
    return list(json.loads(_native.features(args)))


def sample(
    *inputs: PathLike,
    out: PathLike,
    size: int,
    **options: Any,
) -> Dict[str, Any]:
    """Draws a micro-benchmark as ``qajudge sample INPUT… --out DIR --size N``
    does, writing ``sample.ttl``, ``ids.txt`` and ``benchmark.json`` into
    ``out``; returns what ``--format json`` prints (``questions``, ``method``,
    ``diversity``, ``written``, …). Options are the command's (``features=``,
    ``where=``, ``query=``, ``method=``, ``seed=``, …)."""
    args = _argv("sample", {"out": out, "size": size, **options}, taken=("format",))
    args += ["--"] + [_text(i) for i in inputs]
    return dict(json.loads(_native.sample(args)))


def audit(
    gold: PathLike,
    kg: Optional[Union[PathLike, Sequence[PathLike]]] = None,
    endpoint: Optional[Union[str, Sequence[str]]] = None,
    repeat: Optional[int] = None,
    profile: Optional[str] = None,
    *,
    gold_answers: Optional[PathLike] = None,
    query_timeout_ms: Optional[int] = None,
    max_rows: Optional[int] = None,
    max_input_mb: Optional[int] = None,
    write_gold: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """Audits a gold benchmark as ``qajudge audit`` does (docs/audit.md): the
    checks on the gold alone, and with ``kg=`` files or ``endpoint=`` URLs
    each query executed ``repeat`` times on each. Returns what ``--format
    json`` prints: ``questions``, ``stores``, ``counts`` and ``findings``
    (each with its question, code, severity, evidence and action).
    ``write_gold`` is ``audit --write-gold``: the gold written to that file
    (QALD-JSON) with the answers of its stable questions frozen and each
    unstable one marked, which :func:`evaluate` scores apart (docs/audit.md)."""
    args = _argv(
        "audit",
        {
            "gold": gold, "kg": [kg] if isinstance(kg, (str, os.PathLike)) else kg, "endpoint": endpoint,
            "repeat": repeat, "profile": profile, "gold_answers": gold_answers,
            "query_timeout_ms": query_timeout_ms, "max_rows": max_rows, "max_input_mb": max_input_mb,
            "write_gold": write_gold,
        },
    )
    return dict(json.loads(_native.audit(args)))


def reproduce(
    report: Union["Report", Mapping[str, Any], PathLike],
    inputs: Optional[PathLike] = None,
    *,
    re_execute: bool = False,
) -> Dict[str, Any]:
    """Re-derives a report from its receipt as ``qajudge reproduce`` does
    (docs/reproduce.md): finds each input where the receipt names it (or
    under ``inputs``, by name or by digest) and checks its digest, evaluates
    again with the receipt's options alone, and compares every figure.
    ``report`` is a :class:`Report`, its ``to_dict()``, or a report file.
    Live systems and endpoints answer as the report recorded them;
    ``re_execute=True`` also asks them again and names what drifted.

    Returns ``verdict`` (``"reproduced"``, ``"differs"``, ``"drifted"``:
    reproduced from the records, and asked again a live source answers
    otherwise, ``"missing"``: an input or a live source's record is missing
    or changed and nothing was evaluated, ``"live"``: a report of an older
    qajudge that recorded not what a live source answered, or
    ``"refused"``: an LLM judge was asked), ``reproduced`` (a
    bool), ``figures`` (how many were compared), ``receipt`` (its hash) and
    ``lines`` (what the command prints: each problem or differing figure
    with both values, then the summary). A report without a receipt raises
    :class:`QajudgeError`."""
    where = _text(inputs) if inputs is not None else None
    again = bool(re_execute)
    if isinstance(report, Report):
        found = _native.reproduce(text=report.to_json(), inputs=where, re_execute=again)
    elif isinstance(report, Mapping):
        found = _native.reproduce(text=json.dumps(report), inputs=where, re_execute=again)
    elif isinstance(report, (str, os.PathLike)):
        found = _native.reproduce(path=os.fspath(report), inputs=where, re_execute=again)
    else:
        raise UsageError(
            f"reproduce(report=) takes a Report, its to_dict() or a report file, not {type(report).__name__}"
        )
    out = dict(json.loads(found))
    out["reproduced"] = out["verdict"] == "reproduced"
    return out


def refresh(
    gold: PathLike,
    out: PathLike,
    kg: Optional[Union[PathLike, Sequence[PathLike]]] = None,
    endpoint: Optional[str] = None,
    *,
    query_timeout_ms: Optional[int] = None,
    max_rows: Optional[int] = None,
    max_query_memory_mb: Optional[int] = None,
    max_input_mb: Optional[int] = None,
) -> Path:
    """Executes every gold query on ``kg=`` files or an ``endpoint=`` and
    writes the benchmark with the results as its answers to ``out``
    (QALD-JSON), as ``qajudge refresh`` does; returns ``out``."""
    args = _argv(
        "refresh",
        {
            "gold": gold, "out": out, "kg": [kg] if isinstance(kg, (str, os.PathLike)) else kg,
            "endpoint": endpoint, "query_timeout_ms": query_timeout_ms, "max_rows": max_rows,
            "max_query_memory_mb": max_query_memory_mb, "max_input_mb": max_input_mb,
        },
    )
    _native.command("refresh", args)
    return Path(out)


def index_build(*inputs: PathLike, out: PathLike, **options: Any) -> "Any":
    """Builds an index from RDF dumps as ``qajudge index build INPUT… --out
    DIR`` does and opens it (:class:`Index`). Options are the command's
    (``equivalence=[...]``, ``label=[...]``, ``lenient=True``, …)."""
    args = _argv("index build", {"out": out, **options})
    _native.command("index build", args + ["--"] + [_text(i) for i in inputs])
    return _native.Index(out)


def index_fetch(out: PathLike, **options: Any) -> "Any":
    """Fetches the index a gold needs from SPARQL endpoints as ``qajudge
    index fetch --out DIR`` does (``gold=[...]`` or ``iris=``,
    ``endpoint=["wikidata"]``, ``hops=``, ``lang=``, …) and opens it
    (:class:`Index`)."""
    args = _argv("index fetch", {"out": out, **options})
    _native.command("index fetch", args)
    return _native.Index(out)
