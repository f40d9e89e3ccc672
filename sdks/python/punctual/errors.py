"""What the SDK raises, and what a handler raises to say how its attempt failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class PunctualError(Exception):
    """The base of everything this SDK raises about Punctual."""


@dataclass(frozen=True)
class FieldError:
    """One invalid field of a 422: its path (``jobs[2].dependsOn[0].ref``) and what is wrong."""

    field: str
    message: str


class PunctualProblem(PunctualError):
    """A refusal of the API: an RFC 9457 problem (``application/problem+json``).

    ``type`` is the problem's URI (``https://punctual.dev/problems/invalid-request``), ``kind`` its
    last segment (``invalid-request``); ``field`` the first field at fault and ``errors`` every one,
    for a validation problem; ``retry_after`` the seconds of a ``Retry-After`` header (429, 503).
    """

    def __init__(
        self,
        status: int,
        type: str | None = None,
        title: str | None = None,
        detail: str | None = None,
        field: str | None = None,
        errors: list[FieldError] | None = None,
        instance: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.field = field
        self.errors = list(errors or [])
        self.instance = instance
        self.retry_after = retry_after
        self.body = body
        super().__init__(f"{status} {self.kind or title or 'error'}: {detail or title or ''}".strip())

    @property
    def kind(self) -> str | None:
        """The problem's kind, the last segment of ``type`` (``job-final``)."""
        if not self.type:
            return None
        return self.type.rstrip("/").rsplit("/", 1)[-1]


class PunctualConnectionError(PunctualError, ConnectionError):
    """The API could not be reached, or the connection broke before an answer."""


class JobWaitTimeout(PunctualError, TimeoutError):
    """``await_final`` gave up: the job was not final in time. It goes on; ``job`` is its last read."""

    def __init__(self, job: dict, waited: float) -> None:
        self.job = job
        self.waited = waited
        super().__init__(f"job {job.get('id')} still {job.get('status')} after {waited:.1f} s")


class NonRetryableError(Exception):
    """Raised by a handler: the attempt fails and the job fails at once, whatever attempts it has left."""


class RetryAfterError(Exception):
    """Raised by a handler: the attempt fails (retryable) and the next one waits at least ``seconds``.

    The job's own backoff applies when it is longer. At most a day.
    """

    def __init__(self, seconds: float, message: str | None = None) -> None:
        if seconds < 0:
            raise ValueError("seconds must be >= 0")
        self.seconds = seconds
        super().__init__(message or f"retry after {seconds} s")
