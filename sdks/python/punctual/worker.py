"""A worker that runs Punctual jobs in this process, over the worker protocol (docs/worker-protocol.md).

It registers with the API, claims attempts with a long poll (``max`` = its free slots), runs each
handler on a thread of its own, heartbeats the attempts it holds every ``heartbeatIntervalMs`` with
their progress and log lines (and while idle, which keeps it alive during a long poll), stops the
attempts the heartbeat's answer lists (``ctx.cancelled``), completes each attempt fenced by its
number, and registers again when the API took it for dead (a 404 for its id).
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ._http import Http
from .errors import NonRetryableError, PunctualConnectionError, PunctualProblem, RetryAfterError

log = logging.getLogger("punctual.worker")

MAX_LINES_PER_BEAT = 100  # the protocol's bound per attempt and heartbeat
MAX_PENDING_LINES = 10_000  # lines a context keeps waiting for a heartbeat; more are dropped
MAX_LINE_CHARS = 4_096  # the API cuts longer lines there
MAX_ERROR_CHARS = 10_000
MAX_RETRY_AFTER_MS = 86_400_000
MAX_FOLLOW_UPS = 1_000  # a completion's follow-ups (the API's bound)


def _clean(text: str) -> str:
    """Text the API takes: no NUL, no lone surrogate (either would refuse the whole request)."""
    text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


@dataclass(frozen=True)
class _Registration:
    id: str
    heartbeat_interval: float
    lease_ttl: float
    max_wait_ms: int


class JobContext:
    """One attempt of a job, as its handler sees it."""

    def __init__(self, claimed: Mapping[str, Any], registration_id: str) -> None:
        self.job_id: str = claimed["jobId"]
        self.attempt: int = claimed["attempt"]
        self.type: str = claimed.get("type")
        self.namespace: str = claimed.get("namespace")
        self.payload: Any = claimed.get("payload")
        self.max_attempts: int | None = claimed.get("maxAttempts")
        self.idempotency_key: str | None = claimed.get("idempotencyKey")
        self.tags: list[str] = list(claimed.get("tags") or [])
        self.deadline: str | None = claimed.get("deadline")
        self.traceparent: str | None = claimed.get("traceparent")
        self.worker_id = registration_id
        #: Set when the API says to stop this attempt (cancelled, timed out, no longer held) or
        #: the worker lost its registration: stop soon; its result will be refused.
        self.cancelled = threading.Event()
        self._refused = False  # the API will refuse its completion: do not send one
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._dropped = 0
        self._progress: dict | None = None
        self._follow_ups: list[dict] = []

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled.is_set()

    def progress(self, done_or_percent: float, total: int | None = None) -> None:
        """``progress(40)``: 40 %; ``progress(3, 10)``: 3 of 10. Sent with the next heartbeat."""
        if total is None:
            p = done_or_percent
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 100:
                raise ValueError(f"percent must be a number from 0 to 100, got {p!r}")
            report = {"percent": float(p)}
        else:
            done = done_or_percent
            if (isinstance(done, bool) or isinstance(total, bool) or not isinstance(done, int)
                    or not isinstance(total, int) or total <= 0 or not 0 <= done <= total):
                raise ValueError(f"need integers 0 <= done <= total, total > 0; got {done!r}, {total!r}")
            report = {"done": done, "total": total}
        with self._lock:
            self._progress = report

    def log(self, line: Any) -> None:
        """One log line (cut at 4,096 characters), buffered and sent with the next heartbeat."""
        text = _clean(str(line))[:MAX_LINE_CHARS]
        with self._lock:
            if len(self._lines) >= MAX_PENDING_LINES:
                self._dropped += 1
            else:
                self._lines.append(text)

    def follow_up(self, job: Mapping[str, Any]) -> None:
        """Asks for a follow-up job (``{"type": ..., "payload": ...}`` and any field of a submitted
        job but callback and waits), stored with this attempt's success (and only then) as the
        job's child in its namespace; dropped when the attempt fails. At most 1,000 an attempt."""
        if not isinstance(job, Mapping) or not isinstance(job.get("type"), str):
            raise TypeError(f"a follow-up is a mapping with a type, got {job!r}")
        with self._lock:
            if len(self._follow_ups) >= MAX_FOLLOW_UPS:
                raise ValueError(f"at most {MAX_FOLLOW_UPS} follow-ups an attempt")
            self._follow_ups.append(dict(job))

    # --- for the worker

    def _has_report(self) -> bool:
        with self._lock:
            return bool(self._lines) or self._progress is not None

    def _take_report(self) -> dict:
        item: dict[str, Any] = {"jobId": self.job_id, "attempt": self.attempt}
        with self._lock:
            if self._progress is not None:
                item["progress"] = self._progress
                self._progress = None
            if self._dropped and len(self._lines) < MAX_PENDING_LINES:
                self._lines.append(f"({self._dropped} log lines dropped: more than {MAX_PENDING_LINES} waiting)")
                self._dropped = 0
            if self._lines:
                item["logs"] = self._lines[:MAX_LINES_PER_BEAT]
                del self._lines[:MAX_LINES_PER_BEAT]
        return item

    def _put_back(self, item: dict) -> None:
        """A report that was not delivered goes out with the next heartbeat."""
        with self._lock:
            if "progress" in item and self._progress is None:
                self._progress = item["progress"]
            if "logs" in item:
                self._lines[:0] = item["logs"]

    def _stop(self) -> None:
        self._refused = True
        self.cancelled.set()


Handler = Callable[[JobContext], Any]


class Worker:
    """Runs ``handlers`` (job type to a function of a ``JobContext``) for the jobs of ``namespace``.

    ``concurrency`` attempts at once, each on a thread. A handler's return value (JSON-serialisable)
    is the job's result; an exception fails the attempt: retryable (the job's backoff applies), or
    not with ``NonRetryableError``; ``RetryAfterError(seconds)`` asks the retry to wait that long.

    ``api_key`` needs the ``worker`` role in ``namespace`` (or ``admin``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        handlers: Mapping[str, Handler],
        namespace: str = "default",
        concurrency: int = 4,
        *,
        wait_ms: int = 20_000,
        timeout: float = 30.0,
    ) -> None:
        if not handlers:
            raise ValueError("handlers must name at least one job type")
        if not 1 <= concurrency <= 1000:
            raise ValueError("concurrency must be from 1 to 1000")
        self.handlers = dict(handlers)
        self.namespace = namespace
        self.concurrency = concurrency
        self.wait_ms = wait_ms
        self._http = Http(base_url, api_key, namespace, timeout)
        self._registration: _Registration | None = None
        self._reg_lock = threading.Lock()
        self._held: dict[tuple[str, int], JobContext] = {}
        self._held_lock = threading.Lock()
        self._slots = threading.Condition()
        self._running = 0
        self._stopping = threading.Event()
        self._beating_stop = threading.Event()
        self._claim_conn = self._http.connection()
        self._claimer: threading.Thread | None = None
        self._beater: threading.Thread | None = None
        self._started = False
        self._stopped = False
        #: How many times it registered (1 after start; more after the API took it for dead).
        self.registrations = 0

    # --- lifecycle

    @property
    def worker_id(self) -> str | None:
        """Its current registration's id (``remote-…``)."""
        reg = self._registration
        return reg.id if reg else None

    def start(self) -> "Worker":
        """Registers (raising PunctualProblem if the API refuses), then claims and heartbeats on
        threads of its own. Returns at once."""
        if self._started:
            raise RuntimeError("worker started already")
        self._registration = self._register()
        self._started = True
        self._claimer = threading.Thread(target=self._claim_loop, name="punctual-claim", daemon=True)
        self._beater = threading.Thread(target=self._heartbeat_loop, name="punctual-heartbeat", daemon=True)
        self._claimer.start()
        self._beater.start()
        return self

    def stop(self, timeout: float | None = None) -> bool:
        """Stops gracefully: claims no more, lets running handlers finish (heartbeating them) for up
        to ``timeout`` seconds (None: as long as they take), then deregisters (``DELETE``; the API
        hands back what is still running after ``worker.shutdownGrace``). True when every handler
        finished."""
        if not self._started or self._stopped:
            return True
        self._stopped = True
        self._stopping.set()
        with self._slots:
            self._slots.notify_all()
        while self._claimer and self._claimer.is_alive():
            self._claim_conn.abort()  # ends the long poll in flight
            self._claimer.join(0.2)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._slots:
            while self._running > 0:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._slots.wait(left)
            finished = self._running == 0
        self._beating_stop.set()
        if self._beater:
            self._beater.join()
        reg = self._registration
        try:
            self._http.request("DELETE", f"/workers/{_q(reg.id)}")
        except PunctualProblem as p:
            if p.status != 404:
                log.warning("deregistering %s: %s", reg.id, p)
        except PunctualConnectionError as e:
            log.warning("deregistering %s: %s", reg.id, e)
        self._http.close()
        return finished

    def run(self) -> None:
        """Starts, runs until SIGINT/SIGTERM (Ctrl-C), then stops gracefully."""
        done = threading.Event()
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda *_: done.set())
        self.start()
        try:
            while not done.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> "Worker":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- registration

    def _register(self) -> _Registration:
        answer = self._http.request(
            "POST", "/workers", {"types": list(self.handlers), "concurrency": self.concurrency}
        )
        self.registrations += 1
        reg = _Registration(
            id=answer["id"],
            heartbeat_interval=max(0.05, answer.get("heartbeatIntervalMs", 5000) / 1000),
            lease_ttl=answer.get("leaseTtlMs", 15000) / 1000,
            max_wait_ms=int(answer.get("maxWaitMs", 30000)),
        )
        log.info("registered %s in %s for %s", reg.id, self.namespace, list(self.handlers))
        return reg

    def _reregister(self, lost_id: str) -> None:
        """The API answered 404 for ``lost_id``: it took this worker for dead and rescues its
        attempts. Stops those attempts (their results would be refused) and registers again."""
        if self._stopping.is_set():
            return
        with self._reg_lock:
            current = self._registration
            if current is None or current.id != lost_id:
                return  # another thread registered again already
            log.warning("the API lost worker %s (taken for dead): registering again", lost_id)
            with self._held_lock:
                lost = [c for c in self._held.values() if c.worker_id == lost_id]
            for ctx in lost:
                ctx._stop()
            delay = 0.2
            while not self._stopping.is_set():
                try:
                    self._registration = self._register()
                    # A long poll in flight waits on the lost registration: end it, claim anew.
                    self._claim_conn.abort()
                    return
                except (PunctualProblem, PunctualConnectionError) as e:
                    log.warning("registering again: %s", e)
                    self._stopping.wait(delay)
                    delay = min(delay * 2, 5.0)

    # --- claiming

    def _claim_loop(self) -> None:
        delay = 0.2
        while not self._stopping.is_set():
            with self._slots:
                while self._running >= self.concurrency and not self._stopping.is_set():
                    self._slots.wait()
                free = self.concurrency - self._running
            if self._stopping.is_set():
                return
            reg = self._registration
            wait_ms = max(0, min(self.wait_ms, reg.max_wait_ms))
            try:
                answer = self._http.request(
                    "POST",
                    f"/workers/{_q(reg.id)}/claim",
                    {"max": free, "waitMs": wait_ms},
                    timeout=wait_ms / 1000 + self._http.timeout,
                    conn=self._claim_conn,
                )
                delay = 0.2
            except PunctualProblem as p:
                if p.status == 404:
                    self._reregister(reg.id)
                    continue
                log.warning("claim refused: %s", p)
                self._stopping.wait(p.retry_after or delay)
                delay = min(delay * 2, 5.0)
                continue
            except PunctualConnectionError as e:
                if self._stopping.is_set():
                    return
                if self._registration is not reg:
                    continue  # aborted: it registered again
                log.warning("claim failed: %s", e)
                self._stopping.wait(delay)
                delay = min(delay * 2, 5.0)
                continue
            # Run what was handed over even when stopping meanwhile: it is ours now.
            for claimed in answer.get("attempts") or []:
                self._launch(JobContext(claimed, reg.id))

    def _launch(self, ctx: JobContext) -> None:
        with self._slots:
            self._running += 1
        with self._held_lock:
            self._held[(ctx.job_id, ctx.attempt)] = ctx
        threading.Thread(target=self._run, args=(ctx,), name=f"punctual-job-{ctx.job_id}", daemon=True).start()

    # --- running and completing

    def _run(self, ctx: JobContext) -> None:
        try:
            body = self._outcome(ctx)
            if not ctx._refused:
                self._complete(ctx, body)
        except Exception:  # never lose the slot
            log.exception("completing job %s attempt %s", ctx.job_id, ctx.attempt)
        finally:
            with self._held_lock:
                if self._held.get((ctx.job_id, ctx.attempt)) is ctx:
                    del self._held[(ctx.job_id, ctx.attempt)]
            with self._slots:
                self._running -= 1
                self._slots.notify_all()

    def _outcome(self, ctx: JobContext) -> dict:
        handler = self.handlers.get(ctx.type)
        try:
            if handler is None:
                raise NonRetryableError(f"no handler for type {ctx.type}")
            result = handler(ctx)
        except NonRetryableError as e:
            return _failed(e, retryable=False)
        except RetryAfterError as e:
            body = _failed(e, retryable=True)
            body["retryAfterMs"] = min(MAX_RETRY_AFTER_MS, int(e.seconds * 1000))
            return body
        except Exception as e:
            log.info("job %s attempt %s failed: %r", ctx.job_id, ctx.attempt, e)
            return _failed(e, retryable=True)
        try:
            json.dumps(result, allow_nan=False)
        except (TypeError, ValueError) as e:
            return {"status": "failed", "retryable": False,
                    "error": _clean(f"the handler's result is not JSON: {e}")[:MAX_ERROR_CHARS]}
        body = {"status": "succeeded", "result": result}
        with ctx._lock:
            if ctx._follow_ups:
                body["followUps"] = list(ctx._follow_ups)
        return body

    def _complete(self, ctx: JobContext, body: dict) -> None:
        if ctx._has_report():
            self._beat([ctx])  # its last progress and lines first, while it is still held
            if ctx._refused:
                return
        body = {"jobId": ctx.job_id, "attempt": ctx.attempt, **body}
        delay = 0.2
        for tries in range(6):
            try:
                self._http.request("POST", f"/workers/{_q(ctx.worker_id)}/complete", body)
                return
            except PunctualProblem as p:
                if p.status == 404:
                    log.warning("job %s attempt %s: worker %s gone, result dropped (the attempt is rescued)",
                                ctx.job_id, ctx.attempt, ctx.worker_id)
                    self._reregister(ctx.worker_id)
                    return
                if p.status == 409:
                    log.info("job %s attempt %s: result refused (%s)", ctx.job_id, ctx.attempt, p.detail)
                    return
                if p.status == 422 and body["status"] == "succeeded":
                    # A result the API cannot store (a NUL in it, say): fail the attempt, saying why.
                    body = {"jobId": ctx.job_id, "attempt": ctx.attempt, "status": "failed",
                            "retryable": False, "error": _clean(f"result refused: {p.detail}")[:MAX_ERROR_CHARS]}
                    continue
                if p.status < 500 and p.status != 429:
                    log.error("job %s attempt %s: completion refused: %s", ctx.job_id, ctx.attempt, p)
                    return
                wait = p.retry_after or delay
            except PunctualConnectionError as e:
                log.warning("job %s attempt %s: completion failed (%s), trying again", ctx.job_id, ctx.attempt, e)
                wait = delay
            time.sleep(wait)
            delay = min(delay * 2, 5.0)
        log.error("job %s attempt %s: completion not delivered; the attempt will be rescued", ctx.job_id, ctx.attempt)

    # --- heartbeats

    def _heartbeat_loop(self) -> None:
        while not self._beating_stop.wait(self._registration.heartbeat_interval):
            reg = self._registration
            with self._held_lock:
                held = [c for c in self._held.values() if c.worker_id == reg.id and not c._refused]
            try:
                self._beat(held, reg)
            except Exception:
                log.exception("heartbeat")

    def _beat(self, contexts: list[JobContext], reg: _Registration | None = None) -> None:
        """One heartbeat naming ``contexts`` (none: it says this worker is alive), with their
        progress and new lines; stops those its answer lists."""
        worker_id = reg.id if reg else contexts[0].worker_id
        items = [c._take_report() for c in contexts]
        try:
            answer = self._http.request("POST", f"/workers/{_q(worker_id)}/heartbeat", {"attempts": items})
        except PunctualProblem as p:
            if p.status == 404:
                self._reregister(worker_id)
                return
            log.warning("heartbeat refused: %s", p)
            if p.status != 422:  # a 422 would refuse the same lines again
                for c, item in zip(contexts, items):
                    c._put_back(item)
            return
        except PunctualConnectionError as e:
            log.warning("heartbeat failed: %s", e)
            for c, item in zip(contexts, items):
                c._put_back(item)
            return
        for s in answer.get("stop") or []:
            with self._held_lock:
                ctx = self._held.get((s.get("jobId"), s.get("attempt")))
            if ctx is not None:
                log.info("job %s attempt %s: stop (cancelled, timed out or not held)", ctx.job_id, ctx.attempt)
                ctx._stop()


def _failed(e: BaseException, retryable: bool) -> dict:
    text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return {"status": "failed", "retryable": retryable, "error": _clean(text)[:MAX_ERROR_CHARS]}


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")
