"""qajudge: judge question-answering systems over knowledge graphs, in Python.

``evaluate`` scores runs as ``qajudge evaluate`` does, in this process, and
returns a :class:`Report`; :class:`Index` answers an index's lookups;
``check``, ``features`` and ``sample`` are the commands of those names;
:class:`Client` talks to a ``qajudge serve`` server. The whole API:
docs/python.md.
"""

from ._api import Report, check, evaluate, features, sample
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
    "Client",
    *_errors.__all__,
    "ServiceError",
]
