"""The client of the REST API: submit jobs, batches and workflows, read, wait for, cancel."""

from __future__ import annotations

import time
import urllib.parse
from typing import Any, Iterable

from ._http import Http
from .errors import JobWaitTimeout

FINAL_STATUSES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED"})


def _id(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


class Client:
    """A client of one Punctual API (``base_url``, e.g. ``http://localhost:8080``) with one key, in
    one namespace. Thread-safe (each thread keeps its own connection); make one and reuse it.

    Jobs are plain dicts with the fields of ``POST /api/v1/jobs`` (``{"type": "report", "payload":
    {...}, "maxAttempts": 5}``); every answer is the API's JSON as dicts. A refusal raises
    ``PunctualProblem``; an unreachable API ``PunctualConnectionError``.
    """

    def __init__(self, base_url: str, api_key: str | None, namespace: str = "default", *, timeout: float = 30.0):
        self._http = Http(base_url, api_key, namespace, timeout)
        self.base_url = self._http.base_url
        self.namespace = namespace
        self._api_key = api_key
        self._timeout = timeout

    def close(self) -> None:
        """Closes its kept-alive connections."""
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def with_namespace(self, namespace: str) -> "Client":
        """The same server and key, another namespace."""
        return Client(self.base_url, self._api_key, namespace, timeout=self._timeout)

    # --- jobs

    def submit(self, job: dict, traceparent: str | None = None) -> dict:
        """``POST /jobs``: the stored job (an idempotent repeat answers the job stored the first
        time). ``traceparent``, a W3C trace context, is kept with the job and handed to its worker."""
        return self._http.request("POST", "/jobs", job, headers={"traceparent": traceparent})

    def submit_batch(self, jobs: Iterable[dict], traceparent: str | None = None) -> list[dict]:
        """``POST /jobs/batch``: all stored or none (a bad one is a 422 naming ``jobs[i].field``);
        the jobs in the order given."""
        answer = self._http.request("POST", "/jobs/batch", {"jobs": list(jobs)}, headers={"traceparent": traceparent})
        return answer["items"]

    def get(self, job_id: str) -> dict:
        """``GET /jobs/{id}`` (``progress`` shows the latest progress its attempts reported)."""
        return self._http.request("GET", f"/jobs/{_id(job_id)}")

    def list(self, *, status: str | None = None, type: str | None = None, tag: str | None = None,
             limit: int | None = None, cursor: str | None = None) -> dict:
        """``GET /jobs``: ``{"items": [...], "nextCursor": ...}``, newest scheduled first."""
        return self._http.request("GET", "/jobs", query={"status": status, "type": type, "tag": tag,
                                                          "limit": limit, "cursor": cursor})

    def executions(self, job_id: str) -> list[dict]:
        """``GET /jobs/{id}/executions``: its attempts, first first."""
        return self._http.request("GET", f"/jobs/{_id(job_id)}/executions")["items"]

    def logs(self, job_id: str, attempt: int | None = None, after: int = 0, limit: int | None = None) -> dict:
        """``GET /jobs/{id}/logs``: ``{"jobId", "attempt", "lines": [{"seq", "at", "line"}], "next"}``
        of one attempt (None: the latest that logged), lines after ``after``; poll on with
        ``after=page["next"]``."""
        return self._http.request("GET", f"/jobs/{_id(job_id)}/logs",
                                  query={"attempt": attempt, "after": after, "limit": limit})

    def cancel(self, job_id: str) -> dict:
        """``POST /jobs/{id}/cancel``: the job, CANCELLED. A final job is a 409 ``job-final``."""
        return self._http.request("POST", f"/jobs/{_id(job_id)}/cancel")

    def retry(self, job_id: str) -> dict:
        """``POST /jobs/{id}/retry``: a FAILED, CANCELLED or SKIPPED job runs again."""
        return self._http.request("POST", f"/jobs/{_id(job_id)}/retry")

    def await_final(self, job_id: str, timeout: float = 60.0) -> dict:
        """Waits until the job is final (SUCCEEDED, FAILED, CANCELLED or SKIPPED) and returns it.

        Reads it at once, then after 50 ms, the pause growing by half up to 2 s, never past the
        deadline. Not final within ``timeout`` seconds: ``JobWaitTimeout`` (``.job`` is the last
        read; the job goes on). No such job: a 404 ``PunctualProblem``.
        """
        if timeout < 0:
            raise ValueError("timeout must be >= 0")
        start = time.monotonic()
        deadline = start + timeout
        pause = 0.05
        while True:
            job = self.get(job_id)
            if job.get("status") in FINAL_STATUSES:
                return job
            left = deadline - time.monotonic()
            if left <= 0:
                raise JobWaitTimeout(job, time.monotonic() - start)
            time.sleep(min(pause, left))
            pause = min(pause * 1.5, 2.0)

    # --- workflows

    def submit_workflow(self, workflow: dict | list, traceparent: str | None = None) -> dict:
        """``POST /workflows``: a graph of jobs stored all or none. ``workflow`` is the body
        (``{"jobs": [{"ref": "a", "type": ...}, {"ref": "b", "dependsOn": [{"ref": "a"}], ...}],
        "idempotencyKey": ...}``) or just its list of steps."""
        body = {"jobs": list(workflow)} if isinstance(workflow, list) else workflow
        return self._http.request("POST", "/workflows", body, headers={"traceparent": traceparent})

    def get_workflow(self, workflow_id: str) -> dict:
        return self._http.request("GET", f"/workflows/{_id(workflow_id)}")

    def cancel_workflow(self, workflow_id: str) -> dict:
        """Cancels its steps not final yet; all final already is a 409 ``workflow-final``."""
        return self._http.request("POST", f"/workflows/{_id(workflow_id)}/cancel")

    # --- keys and who am I

    def me(self) -> dict:
        """``GET /me``: the calling key (no secret) and the namespace the request acted in."""
        return self._http.request("GET", "/me")

    def create_key(self, name: str, role: str, namespaces: list[str]) -> dict:
        """``POST /keys`` (an admin key): the new key; its ``secret`` is in this answer only."""
        return self._http.request("POST", "/keys", {"name": name, "role": role, "namespaces": namespaces})

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        """Any other route of ``/api/v1`` (``client.request("GET", "/queues/depth")``)."""
        return self._http.request(method, path, body, **kwargs)
