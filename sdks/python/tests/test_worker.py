"""The Python worker against a real Punctual: results, progress and logs, retries, cancels, a
graceful stop, the trace context, and a worker the API lost.

Each test has a namespace of its own (the Java dev worker serves only ``default``), a worker key of
that namespace only, and an admin client to submit and read.
"""

import threading
import time
import unittest
from datetime import datetime

from . import shared
from .shared import punctual, wait_until

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def setUpModule():
    shared.server()


def _instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class WorkerTest(unittest.TestCase):
    def setUp(self):
        self.ns = shared.namespace()
        self.client = shared.admin(self.ns)
        self.addCleanup(self.client.close)
        self.key = shared.worker_key(self.ns)

    def start_worker(self, handlers, **options):
        worker = punctual.Worker(shared.server().base_url, self.key, handlers, namespace=self.ns, **options)
        worker.start()
        self.addCleanup(worker.stop, 10)
        return worker

    def test_a_handler_result_progress_and_log_lines_are_stored_on_the_job(self):
        def report(ctx):
            for i in range(3):
                ctx.log(f"page {i + 1} of {ctx.payload['pages']}")
            ctx.progress(3, 10)
            return {"pages": ctx.payload["pages"], "attempt": ctx.attempt, "job": ctx.job_id}

        self.start_worker({"report": report})
        job = self.client.submit({"type": "report", "payload": {"pages": 3}})

        done = self.client.await_final(job["id"], timeout=15)

        self.assertEqual(done["status"], "SUCCEEDED")
        self.assertEqual(done["result"], {"pages": 3, "attempt": 1, "job": job["id"]})
        self.assertTrue(done["workerId"].startswith("remote-"), done["workerId"])
        # The API writes reports every worker.outputFlushInterval (250 ms): they may follow the end.
        progress = wait_until(lambda: self.client.get(job["id"]).get("progress"), 5, "progress stored")
        self.assertEqual((progress["attempt"], progress["done"], progress["total"], progress["percent"]), (1, 3, 10, 30.0))
        logs = wait_until(lambda: (page := self.client.logs(job["id"]))["lines"] and page, 5, "lines stored")
        self.assertEqual([line["line"] for line in logs["lines"]], ["page 1 of 3", "page 2 of 3", "page 3 of 3"])
        self.assertEqual(logs["attempt"], 1)
        self.assertEqual(self.client.logs(job["id"], attempt=1, after=2)["lines"][0]["line"], "page 3 of 3")

    def test_progress_and_lines_show_while_the_handler_runs(self):
        release = threading.Event()

        def long(ctx):
            ctx.progress(40)
            ctx.log("halfway")
            release.wait(15)
            return "ok"

        self.start_worker({"long": long})
        job = self.client.submit({"type": "long"})
        try:
            running = wait_until(lambda: (j := self.client.get(job["id"])).get("progress") and j, 10,
                                 "progress shown while running")
            self.assertEqual(running["status"], "RUNNING")
            self.assertEqual(running["progress"]["percent"], 40.0)
            self.assertIsNone(running["progress"]["done"])
            lines = wait_until(lambda: self.client.logs(job["id"])["lines"], 5, "the line shown while running")
            self.assertEqual([line["line"] for line in lines], ["halfway"])
        finally:
            release.set()
        self.assertEqual(self.client.await_final(job["id"], timeout=10)["result"], "ok")

    def test_a_raising_handler_is_retried_and_a_non_retryable_error_fails_the_job_at_once(self):
        def flaky(ctx):
            if ctx.attempt == 1:
                raise ValueError("first attempt fails")
            return {"attempt": ctx.attempt}

        def broken(ctx):
            raise punctual.NonRetryableError("bad input, never retry")

        self.start_worker({"flaky": flaky, "broken": broken})
        backoff = {"strategy": "fixed", "delay": "PT0.1S"}
        retried = self.client.submit({"type": "flaky", "maxAttempts": 3, "backoff": backoff})
        failed = self.client.submit({"type": "broken", "maxAttempts": 5, "backoff": backoff})

        retried = self.client.await_final(retried["id"], timeout=15)
        failed = self.client.await_final(failed["id"], timeout=15)

        self.assertEqual((retried["status"], retried["attempts"], retried["result"]), ("SUCCEEDED", 2, {"attempt": 2}))
        first = self.client.executions(retried["id"])[0]
        self.assertEqual(first["status"], "FAILED")
        self.assertIn("ValueError: first attempt fails", first["error"])
        self.assertEqual((failed["status"], failed["attempts"]), ("FAILED", 1))
        self.assertIn("bad input, never retry", failed["lastError"])

    def test_follow_ups_are_stored_with_the_success_as_children_and_dropped_with_a_failure(self):
        ran = []
        refused = []

        def parent(ctx):
            for bad in (None, {}, {"type": 7}):
                try:
                    ctx.follow_up(bad)
                except TypeError as e:
                    refused.append(type(e).__name__)
            ctx.follow_up({"type": "child", "payload": {"n": ctx.payload["n"], "attempt": ctx.attempt},
                           "tags": ["fu"]})
            if ctx.attempt == 1:
                raise ValueError("planned failure: this attempt's follow-up is dropped")
            return {"spawned": 1}

        def child(ctx):
            ran.append(ctx.payload)

        self.start_worker({"parent": parent, "child": child})
        job = self.client.submit({"type": "parent", "payload": {"n": 7}, "maxAttempts": 2,
                                  "backoff": {"strategy": "fixed", "delay": "PT0.1S"}})

        self.assertEqual(self.client.await_final(job["id"], timeout=15)["status"], "SUCCEEDED")
        children = wait_until(
            lambda: (items := self.client.list(type="child")["items"]) and items[0]["status"] == "SUCCEEDED" and items,
            10, "the follow-up ran")
        self.assertEqual(len(children), 1)
        self.assertEqual((children[0]["parentId"], children[0]["tags"]), (job["id"], ["fu"]))
        self.assertEqual(ran, [{"n": 7, "attempt": 2}])

        self.assertEqual(refused, ["TypeError"] * 6)  # three bad follow-ups, each attempt

    def test_retry_after_error_delays_the_next_attempt(self):
        def later(ctx):
            if ctx.attempt == 1:
                raise punctual.RetryAfterError(1.5, "rate limited upstream")
            return "done"

        self.start_worker({"later": later})
        job = self.client.submit({"type": "later", "maxAttempts": 2, "backoff": {"strategy": "fixed", "delay": "PT0.1S"}})

        self.assertEqual(self.client.await_final(job["id"], timeout=15)["status"], "SUCCEEDED")
        first, second = self.client.executions(job["id"])
        self.assertIn("rate limited upstream", first["error"])
        gap = (_instant(second["startedAt"]) - _instant(first["finishedAt"])).total_seconds()
        self.assertGreaterEqual(gap, 1.4)

    def test_a_cancel_sets_ctx_cancelled_and_the_job_ends_cancelled(self):
        started, seen = threading.Event(), threading.Event()

        def wait_for_cancel(ctx):
            started.set()
            if ctx.cancelled.wait(15):
                seen.set()
            return "not recorded"

        self.start_worker({"wait": wait_for_cancel})
        job = self.client.submit({"type": "wait"})
        self.assertTrue(started.wait(10))

        cancelled_at = time.monotonic()
        self.assertEqual(self.client.cancel(job["id"])["status"], "CANCELLED")

        self.assertTrue(seen.wait(5), "ctx.cancelled not set")
        self.assertLess(time.monotonic() - cancelled_at, 3)  # the next heartbeats (every 0.5 s) say so
        time.sleep(0.3)
        job = self.client.get(job["id"])
        self.assertEqual(job["status"], "CANCELLED")
        self.assertIsNone(job["result"])

    def test_stop_lets_running_handlers_finish_then_deregisters(self):
        started = threading.Semaphore(0)

        def slow(ctx):
            started.release()
            time.sleep(1.0)
            return ctx.payload["n"]

        worker = self.start_worker({"slow": slow}, concurrency=2)
        jobs = [self.client.submit({"type": "slow", "payload": {"n": n}}) for n in range(2)]
        for _ in jobs:
            self.assertTrue(started.acquire(timeout=10))
        worker_id = worker.worker_id

        began = time.monotonic()
        self.assertTrue(worker.stop(timeout=10))
        self.assertGreater(time.monotonic() - began, 0.5)  # it waited for the handlers

        for n, job in enumerate(jobs):
            # Completed before stop returned; the API records a completion within milliseconds.
            done = self.client.await_final(job["id"], timeout=2)
            self.assertEqual((done["status"], done["attempts"], done["result"]), ("SUCCEEDED", 1, n))

        def shown_stopped():
            workers = {w["id"]: w for w in self.client.request("GET", "/workers")["items"]}
            return workers.get(worker_id, {}).get("status") == "stopped"

        wait_until(shown_stopped, 10, "the worker shown stopped")
        later = self.client.submit({"type": "slow", "payload": {"n": 9}})
        time.sleep(1.0)
        self.assertEqual(self.client.get(later["id"])["status"], "PENDING")  # nobody claims any more

    def test_the_submitters_traceparent_reaches_ctx_traceparent(self):
        self.start_worker({"trace": lambda ctx: ctx.traceparent})
        job = self.client.submit({"type": "trace"}, traceparent=TRACEPARENT)
        untraced = self.client.submit({"type": "trace"})

        self.assertEqual(self.client.await_final(job["id"], timeout=15)["result"], TRACEPARENT)
        self.assertIsNone(self.client.await_final(untraced["id"], timeout=15)["result"])

    def test_many_jobs_run_at_the_declared_concurrency(self):
        lock, now, peak = threading.Lock(), [0], [0]

        def busy(ctx):
            with lock:
                now[0] += 1
                peak[0] = max(peak[0], now[0])
            time.sleep(0.2)
            with lock:
                now[0] -= 1
            return ctx.payload

        self.start_worker({"busy": busy}, concurrency=4)
        jobs = self.client.submit_batch([{"type": "busy", "payload": i} for i in range(12)])
        results = [self.client.await_final(j["id"], timeout=20)["result"] for j in jobs]

        self.assertEqual(results, list(range(12)))
        self.assertEqual(peak[0], 4)

    def test_a_worker_stays_registered_through_long_polls_longer_than_its_lease(self):
        worker = self.start_worker({"noop": lambda ctx: None}, wait_ms=20_000)
        first_id = worker.worker_id
        time.sleep(4.5)  # idle: one claim waits 20 s, the lease is 3 s; its heartbeats keep it alive
        job = self.client.submit({"type": "noop"})

        self.assertEqual(self.client.await_final(job["id"], timeout=10)["workerId"], first_id)
        self.assertEqual(worker.registrations, 1)

    def test_a_worker_the_api_lost_registers_again_and_goes_on(self):
        worker = self.start_worker({"echo": lambda ctx: ctx.payload})
        lost_id = worker.worker_id
        self.client.request("DELETE", f"/workers/{lost_id}")  # from now on a 404 for its id

        wait_until(lambda: worker.registrations == 2, 10, "registered again")
        self.assertNotEqual(worker.worker_id, lost_id)
        job = self.client.submit({"type": "echo", "payload": {"again": True}})
        done = self.client.await_final(job["id"], timeout=10)
        self.assertEqual((done["result"], done["workerId"]), ({"again": True}, worker.worker_id))

    def test_a_silent_worker_is_taken_for_dead_its_attempt_rescued_and_it_registers_again(self):
        class MutedHeartbeats(punctual.Worker):
            """Its heartbeats go nowhere while ``muted`` is set, as through a partition."""

            muted = threading.Event()

            def _beat(self, contexts, reg=None):
                if not self.muted.is_set():
                    super()._beat(contexts, reg)

        release = threading.Event()

        def stuck_once(ctx):
            if ctx.attempt == 1:
                MutedHeartbeats.muted.set()
                release.wait(30)
            return {"attempt": ctx.attempt}

        # Concurrency 1: while attempt 1 runs it claims nothing either, so the API hears nothing.
        worker = MutedHeartbeats(shared.server().base_url, self.key, {"stuck": stuck_once},
                                 namespace=self.ns, concurrency=1)
        worker.start()
        self.addCleanup(worker.stop, 10)
        first_id = worker.worker_id
        job = self.client.submit({"type": "stuck", "maxAttempts": 3,
                                  "backoff": {"strategy": "fixed", "delay": "PT0.1S"}})

        # Lease 3 s, then the death watch: attempt 1 is LOST and the job waits for attempt 2.
        wait_until(lambda: [e["status"] for e in self.client.executions(job["id"])] == ["LOST"], 30,
                   "attempt 1 rescued as LOST")
        MutedHeartbeats.muted.clear()
        release.set()  # its completion of attempt 1 is a 404: it registers again and claims attempt 2

        done = self.client.await_final(job["id"], timeout=20)
        self.assertEqual((done["status"], done["attempts"], done["result"]), ("SUCCEEDED", 2, {"attempt": 2}))
        self.assertEqual([e["status"] for e in self.client.executions(job["id"])], ["LOST", "SUCCEEDED"])
        self.assertEqual(worker.registrations, 2)
        self.assertNotEqual(done["workerId"], first_id)

    def test_a_worker_key_may_not_read_jobs(self):
        with punctual.Client(shared.server().base_url, self.key, self.ns) as as_worker:
            with self.assertRaises(punctual.PunctualProblem) as refused:
                as_worker.list()
        self.assertEqual(refused.exception.status, 403)


if __name__ == "__main__":
    unittest.main()
