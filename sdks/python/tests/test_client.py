"""The client against a real Punctual: submit, get, await_final, cancel, batches, workflows, problems."""

import unittest
import uuid

from . import shared
from .shared import punctual

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def setUpModule():
    shared.server()


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.client = shared.admin()  # namespace default: the Java dev worker runs its jobs
        self.addCleanup(self.client.close)

    def test_a_submitted_job_runs_on_the_java_worker_and_await_final_returns_it_succeeded(self):
        job = self.client.submit({"type": "noop", "payload": {"hello": "world"}, "tags": ["py"]},
                                 traceparent=TRACEPARENT)
        self.assertEqual(job["status"], "PENDING")
        self.assertEqual(job["namespace"], "default")

        done = self.client.await_final(job["id"], timeout=20)

        self.assertEqual(done["status"], "SUCCEEDED")
        self.assertEqual(done["attempts"], 1)
        self.assertFalse(done["workerId"].startswith("remote-"), done["workerId"])  # the Java worker
        self.assertEqual(done["traceparent"], TRACEPARENT)
        self.assertEqual(self.client.get(job["id"])["payload"], {"hello": "world"})
        self.assertEqual([e["status"] for e in self.client.executions(job["id"])], ["SUCCEEDED"])

    def test_await_final_gives_up_at_its_timeout_and_cancel_ends_the_job_then_refuses_a_second_cancel(self):
        job = self.client.submit({"type": "noop", "delay": "PT1H"})

        with self.assertRaises(punctual.JobWaitTimeout) as waited:
            self.client.await_final(job["id"], timeout=0.3)
        self.assertEqual(waited.exception.job["status"], "PENDING")
        self.assertGreaterEqual(waited.exception.waited, 0.3)

        self.assertEqual(self.client.cancel(job["id"])["status"], "CANCELLED")
        self.assertEqual(self.client.await_final(job["id"], timeout=1)["status"], "CANCELLED")
        with self.assertRaises(punctual.PunctualProblem) as refused:
            self.client.cancel(job["id"])
        self.assertEqual(refused.exception.status, 409)
        self.assertEqual(refused.exception.kind, "job-final")
        self.assertEqual(refused.exception.type, "https://punctual.dev/problems/job-final")

    def test_a_batch_is_stored_in_order_and_runs(self):
        jobs = self.client.submit_batch([{"type": "noop", "tags": ["b0"]},
                                         {"type": "sleep", "payload": {"ms": 50}, "priority": "high"}])
        self.assertEqual([j["type"] for j in jobs], ["noop", "sleep"])
        self.assertEqual(jobs[1]["priority"], "high")
        for j in jobs:
            self.assertEqual(self.client.await_final(j["id"], timeout=20)["status"], "SUCCEEDED")

    def test_a_bad_job_in_a_batch_refuses_the_whole_batch_naming_its_index(self):
        tag = uuid.uuid4().hex
        with self.assertRaises(punctual.PunctualProblem) as refused:
            self.client.submit_batch([{"type": "noop", "tags": [tag]}, {"type": "noop", "priority": "urgent"}])
        self.assertEqual(refused.exception.status, 422)
        self.assertEqual(refused.exception.field, "jobs[1].priority")
        self.assertEqual(self.client.list(tag=tag)["items"], [])  # all or none

    def test_a_workflow_runs_its_steps_in_order(self):
        wf = self.client.submit_workflow([
            {"ref": "extract", "type": "sleep", "payload": {"ms": 100}},
            {"ref": "compile", "type": "noop", "dependsOn": [{"ref": "extract"}]},
            {"ref": "alert", "type": "noop", "parent": "compile", "runCondition": "on_failure"},
        ])
        steps = {s["ref"]: s for s in wf["jobs"]}
        self.assertEqual(steps["compile"]["status"], "BLOCKED")

        compiled = self.client.await_final(steps["compile"]["id"], timeout=20)
        extracted = self.client.get(steps["extract"]["id"])
        self.assertEqual(compiled["status"], "SUCCEEDED")
        self.assertGreaterEqual(compiled["startedAt"], extracted["finishedAt"])
        self.assertEqual(self.client.await_final(steps["alert"]["id"], timeout=20)["status"], "SKIPPED")
        self.assertEqual(self.client.get_workflow(wf["id"])["status"], "SUCCEEDED")
        with self.assertRaises(punctual.PunctualProblem) as refused:
            self.client.cancel_workflow(wf["id"])
        self.assertEqual(refused.exception.kind, "workflow-final")

    def test_a_workflow_naming_an_unknown_step_is_a_422_naming_the_field(self):
        with self.assertRaises(punctual.PunctualProblem) as refused:
            self.client.submit_workflow({"jobs": [{"ref": "a", "type": "noop"},
                                                  {"ref": "b", "type": "noop", "dependsOn": [{"ref": "nope"}]}]})
        self.assertEqual(refused.exception.status, 422)
        self.assertEqual(refused.exception.field, "jobs[1].dependsOn[0].ref")

    def test_every_invalid_field_is_named_in_the_problem(self):
        with self.assertRaises(punctual.PunctualProblem) as refused:
            self.client.submit({"type": "noop", "priority": "urgent", "maxAttempts": 0})
        p = refused.exception
        self.assertEqual((p.status, p.kind, p.title), (422, "invalid-request", "Invalid request"))
        self.assertEqual(p.field, "priority")
        self.assertEqual({e.field for e in p.errors}, {"priority", "maxAttempts"})
        self.assertIn("priority", p.detail)

    def test_an_unknown_job_is_a_404_and_a_bad_key_a_401(self):
        with self.assertRaises(punctual.PunctualProblem) as missing:
            self.client.get(str(uuid.uuid4()))
        self.assertEqual((missing.exception.status, missing.exception.kind), (404, "not-found"))

        stranger = punctual.Client(shared.server().base_url, "pct_not-a-key")
        self.addCleanup(stranger.close)
        with self.assertRaises(punctual.PunctualProblem) as refused:
            stranger.get(str(uuid.uuid4()))
        self.assertEqual((refused.exception.status, refused.exception.kind), (401, "unauthorized"))

    def test_an_unreachable_api_is_a_connection_error(self):
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # nothing listens there once closed
        with self.assertRaises(punctual.PunctualConnectionError):
            with punctual.Client(f"http://127.0.0.1:{port}", "k", timeout=2) as c:
                c.get(str(uuid.uuid4()))


if __name__ == "__main__":
    unittest.main()
