"""qajudge: judge question-answering systems over knowledge graphs, in Python.

``evaluate`` scores runs as ``qajudge evaluate`` does, in this process, and
returns a :class:`Report`; :class:`Index` answers an index's lookups;
``check``, ``features``, ``sample``, ``audit``, ``refresh``, ``reproduce``,
``index_build`` and ``index_fetch`` are the commands of those names;
:class:`Client` talks to a ``qajudge serve`` server. The whole API:
docs/python.md.
"""

from ._api import Report, audit, check, evaluate, features, index_build, index_fetch, refresh, reproduce, sample
from ._errors import (
    FetchError,
    IndexFileError,
    InputError,
    JobError,
    KgError,
    LiveError,
    LiveSystemError,
    QajudgeError,
    QajudgeWarning,
    QaldError,
    SparqlError,
    UsageError,
)
from . import _errors
from ._native import Index, __version__
from .client import Client, ServiceError

__all__ = [
    "__version__",
    "evaluate",
    "Report",
    "Index",
    "check",
    "features",
    "sample",
    "audit",
    "refresh",
    "reproduce",
    "index_build",
    "index_fetch",
    "Client",
    *_errors.__all__,
    "ServiceError",
]
