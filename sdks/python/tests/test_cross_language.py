"""One job, any language: a job submitted from Python runs on a TypeScript worker, one submitted
from TypeScript runs on a Python worker, and the submitter's traceparent reaches the handler either
way. Needs node (Node.js 20+), as .ci/run does for the TypeScript SDK."""

from __future__ import annotations

import os
import subprocess
import unittest

import punctual

from . import shared

CROSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cross")
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def setUpModule():
    shared.server()
    try:
        subprocess.run(["node", "--version"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError("node (Node.js 20+) is needed for the cross-language tests") from e


class CrossLanguageTest(unittest.TestCase):
    def test_a_job_submitted_from_python_runs_on_a_typescript_worker(self):
        ns = shared.namespace("cross")
        s = shared.server()
        node = subprocess.Popen(
            ["node", os.path.join(CROSS, "node_worker.mjs"), s.base_url, shared.worker_key(ns), ns],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            self.assertEqual("ready", node.stdout.readline().strip())
            with shared.admin(ns) as client:
                job = client.submit(
                    {"type": "cross.node", "payload": {"from": "python"}}, traceparent=TRACEPARENT
                )
                done = client.await_final(job["id"], timeout=30)
            self.assertEqual("SUCCEEDED", done["status"])
            result = done["result"]
            self.assertEqual("node", result["ranIn"])
            self.assertEqual({"from": "python"}, result["payload"])
            self.assertEqual(1, result["attempt"])
            # The trace goes on: the handler sees the submitter's trace (its own span within it).
            self.assertIn(TRACE_ID, result["traceparent"])
        finally:
            node.terminate()
            node.wait(timeout=30)
            node.stdout.close()

    def test_a_job_submitted_from_typescript_runs_on_a_python_worker(self):
        ns = shared.namespace("cross")
        s = shared.server()
        seen = {}

        def handle(ctx):
            seen["traceparent"] = ctx.traceparent
            return {"ranIn": "python", "payload": ctx.payload}

        worker = punctual.Worker(
            s.base_url, shared.worker_key(ns), handlers={"cross.python": handle}, namespace=ns
        ).start()
        try:
            with shared.admin(ns) as client:
                out = subprocess.run(
                    [
                        "node",
                        os.path.join(CROSS, "node_submit.mjs"),
                        s.base_url,
                        s.admin_key,
                        ns,
                        TRACEPARENT,
                    ],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=True,
                )
                job_id = out.stdout.strip()
                done = client.await_final(job_id, timeout=30)
            self.assertEqual("SUCCEEDED", done["status"])
            self.assertEqual({"ranIn": "python", "payload": {"from": "node"}}, done["result"])
            self.assertIn(TRACE_ID, seen["traceparent"])
        finally:
            worker.stop()


if __name__ == "__main__":
    unittest.main()
