"""Moved: the client is ``qajudge.Client`` in the package ``qajudge``
(``pip install .`` from the repository root; docs/python.md). This module
only forwards to it."""

import warnings

from qajudge.client import *  # noqa: F401,F403
from qajudge.client import ServiceError as QajudgeError  # noqa: F401

warnings.warn(
    "qajudge_client moved into the package qajudge: use `from qajudge import Client` "
    "(errors are qajudge.ServiceError); see docs/python.md",
    DeprecationWarning,
    stacklevel=2,
)
