"""The exceptions of ``qajudge`` (docs/python.md, Errors).

Every error is a :class:`QajudgeError`; the in-process calls raise the
subclass named after the Rust error found in the error's chain, with the
message the command line prints. The extension module builds them by name.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "QajudgeError",
    "UsageError",
    "InputError",
    "QaldError",
    "IndexFileError",
    "KgError",
    "SparqlError",
    "FetchError",
    "LiveError",
    "JobError",
    "LiveSystemError",
    "QajudgeWarning",
]


class QajudgeError(Exception):
    """An error of qajudge; ``message`` is its text, causes included."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        for name, value in fields.items():
            setattr(self, name, value)


class UsageError(QajudgeError, ValueError):
    """Options the command line refuses: an unknown option, a missing or
    malformed value (the command line's exit code 2)."""


class InputError(QajudgeError, OSError):
    """A file that was named cannot be read: it is missing, not a regular
    file, or past ``max_input_mb``."""


class QaldError(QajudgeError):
    """A benchmark or run that cannot be read (Rust ``qald::QaldError``).

    ``path`` is the file (or the name of a run given as an object); ``line``
    and ``column`` (1-based) where its content is wrong, ``None`` when the file
    could not be read at all."""

    path: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None


class IndexFileError(QajudgeError):
    """An index directory that cannot be opened or read (Rust
    ``index::IndexError``); ``path`` is the directory when the error names it."""

    path: Optional[str] = None


class KgError(QajudgeError):
    """A knowledge graph (``kg=``) that cannot be loaded (Rust ``sparql::KgError``)."""


class SparqlError(QajudgeError):
    """A SPARQL query that cannot be read (Rust ``query::SparqlError``)."""


class FetchError(QajudgeError):
    """An index that cannot be fetched from SPARQL endpoints (Rust ``fetch::FetchError``)."""


class LiveError(QajudgeError):
    """A live QA system that cannot be asked as configured (Rust ``live::LiveError``)."""


class JobError(QajudgeError):
    """An evaluation that cannot give scores (Rust ``eval::job::JobError``)."""


class LiveSystemError(JobError):
    """A live QA system that failed every call, or could not be asked at all:
    a failed run, not a table of zeros. ``url`` is the system's address,
    ``run`` the run's name when every call failed."""

    url: Optional[str] = None
    run: Optional[str] = None


class QajudgeWarning(UserWarning):
    """A diagnostic of warning severity of an evaluation (a run that meets
    fewer than half of the gold's questions, …), raised through
    :func:`warnings.warn` by :func:`qajudge.evaluate`; the report's
    ``diagnostics`` hold it too."""
