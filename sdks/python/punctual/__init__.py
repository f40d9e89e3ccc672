"""Punctual's Python SDK: a client of the REST API and a worker of the worker protocol.

Standard library only. See README.md.
"""

from .client import FINAL_STATUSES, Client
from .errors import (
    FieldError,
    JobWaitTimeout,
    NonRetryableError,
    PunctualConnectionError,
    PunctualError,
    PunctualProblem,
    RetryAfterError,
)
from .worker import JobContext, Worker

__version__ = "0.1.0"

__all__ = [
    "Client",
    "FINAL_STATUSES",
    "FieldError",
    "JobContext",
    "JobWaitTimeout",
    "NonRetryableError",
    "PunctualConnectionError",
    "PunctualError",
    "PunctualProblem",
    "RetryAfterError",
    "Worker",
]
