#!/usr/bin/env python3
"""Measures the Python worker against a real Punctual and prints:

* drain: jobs/s one Worker (no-op handler, --concurrency 32) completes from a backlog of --jobs
  (3,000) submitted before it starts, from its start to its last completion answered, in --rounds
  (3) rounds on the same server (the first warms the JVM up, and shows it: a fresh API is slower),
  with the CPU time this Python process spent per job;
* start lag: jobs submitted one by one at --rate (100/s) for --seconds (20), each job's lag from its
  runAt (the API's clock at submit) to its handler's start in this process (same host, same clock),
  through the long poll: p50, p99, max.

Starts its own ``punctual dev`` from deploy/target/punctual.jar (default settings) unless given
--base-url and --key (an admin key: it makes a worker key and namespaces of its own).

    python3 sdks/python/bench.py [--jobs 3000] [--rate 100] [--seconds 20] [--concurrency 32]

``--drain-only --json`` runs the drain rounds only and prints one JSON object per round (what
``node sdks/bench.mjs`` reads when it runs this worker beside the Java and Node ones).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import uuid
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import punctual  # noqa: E402


def instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class CountingWorker(punctual.Worker):
    """Counts completions answered by the API, and when the last one was."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.completed = 0
        self.last = 0.0
        self._count_lock = threading.Lock()

    def _complete(self, ctx, body):
        super()._complete(ctx, body)
        with self._count_lock:
            self.completed += 1
            self.last = time.monotonic()


def drain(base_url: str, admin: punctual.Client, jobs: int, concurrency: int) -> dict:
    ns = f"bench-drain-{uuid.uuid4().hex[:8]}"
    client = admin.with_namespace(ns)
    key = client.create_key(ns, "worker", [ns])["secret"]
    for start in range(0, jobs, 500):
        client.submit_batch([{"type": "noop"} for _ in range(min(500, jobs - start))])
    worker = CountingWorker(base_url, key, {"noop": lambda ctx: None}, namespace=ns, concurrency=concurrency)
    began = time.monotonic()
    worker.start()
    while worker.completed < jobs:
        time.sleep(0.01)
        if time.monotonic() - began > 600:
            raise RuntimeError(f"drain: {worker.completed} of {jobs} after 600 s")
    elapsed = worker.last - began
    worker.stop()
    succeeded, cursor = 0, None
    while True:  # every job SUCCEEDED (completions are recorded within milliseconds)
        page = client.list(status="SUCCEEDED", limit=500, cursor=cursor)
        succeeded += len(page["items"])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    client.close()
    return {"jobs": jobs, "seconds": elapsed, "per_second": jobs / elapsed, "succeeded": succeeded}


def start_lag(base_url: str, admin: punctual.Client, rate: float, seconds: float, concurrency: int) -> dict:
    ns = f"bench-lag-{uuid.uuid4().hex[:8]}"
    client = admin.with_namespace(ns)
    key = client.create_key(ns, "worker", [ns])["secret"]
    started: dict[str, float] = {}
    run_at: dict[str, float] = {}

    def handler(ctx):
        started[ctx.job_id] = time.time()

    worker = punctual.Worker(base_url, key, {"noop": handler}, namespace=ns, concurrency=concurrency).start()
    time.sleep(1.0)  # its first long poll is waiting
    total = int(rate * seconds)
    nexts = iter(range(total))
    lock = threading.Lock()
    t0 = time.monotonic() + 0.1

    def submitter():
        while True:
            with lock:
                i = next(nexts, None)
            if i is None:
                return
            delay = t0 + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            job = client.submit({"type": "noop"})
            run_at[job["id"]] = instant(job["runAt"])

    threads = [threading.Thread(target=submitter) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    submit_seconds = time.monotonic() - t0
    deadline = time.monotonic() + 60
    while len(started) < total and time.monotonic() < deadline:
        time.sleep(0.05)
    worker.stop()
    # Where the lag goes, on a sample: runAt to the API's own worker claiming the attempt (the
    # job's startedAt), then that to the handler's start here (the hand-over through the long poll).
    claim, handover = [], []
    for j in list(run_at)[:: max(1, total // 200)]:
        if j in started:
            api_start = instant(client.get(j)["startedAt"])
            claim.append((api_start - run_at[j]) * 1000)
            handover.append((started[j] - api_start) * 1000)
    client.close()
    lags = sorted((started[j] - run_at[j]) * 1000 for j in run_at if j in started)
    q = statistics.quantiles(lags, n=100)
    return {"jobs": total, "started": len(lags), "achieved_rate": total / submit_seconds,
            "p50_ms": q[49], "p99_ms": q[98], "max_ms": lags[-1],
            "claim_p50_ms": statistics.median(claim), "handover_p50_ms": statistics.median(handover),
            "claim_p99_ms": statistics.quantiles(claim, n=100)[98],
            "handover_p99_ms": statistics.quantiles(handover, n=100)[98], "sample": len(claim)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url")
    parser.add_argument("--key", help="an admin key (with --base-url)")
    parser.add_argument("--jobs", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--drain-only", action="store_true", help="no start-lag run")
    parser.add_argument("--json", action="store_true", help="one JSON object per drain round")
    args = parser.parse_args()

    server = None
    if args.base_url:
        base_url, key = args.base_url, args.key
    else:
        sys.path.insert(0, os.path.join(HERE, "tests"))
        from devserver import DevServer

        print("starting punctual dev (deploy/target/punctual.jar)...", flush=True)
        server = DevServer().start()
        base_url, key = server.base_url, server.admin_key
    try:
        admin = punctual.Client(base_url, key)
        for round_ in range(1, args.rounds + 1):
            cpu = time.process_time()
            d = drain(base_url, admin, args.jobs, args.concurrency)
            cpu_ms = (time.process_time() - cpu) * 1000 / d["jobs"]
            if args.json:
                print(json.dumps({**d, "cpu_ms_per_job": cpu_ms}), flush=True)
                continue
            print(f"drain round {round_}: {d['jobs']} no-op jobs in {d['seconds']:.2f} s = "
                  f"{d['per_second']:.0f} jobs/s (one worker, concurrency {args.concurrency}; "
                  f"{d['succeeded']} SUCCEEDED; CPU of this Python process, submits included, "
                  f"{cpu_ms:.2f} ms a job)", flush=True)
        if args.drain_only:
            return
        lag = start_lag(base_url, admin, args.rate, args.seconds, args.concurrency)
        print(f"start lag at {lag['achieved_rate']:.0f}/s for {args.seconds:.0f} s ({lag['started']} of "
              f"{lag['jobs']} started): p50 {lag['p50_ms']:.1f} ms, p99 {lag['p99_ms']:.1f} ms, "
              f"max {lag['max_ms']:.1f} ms", flush=True)
        print(f"  of which, on {lag['sample']} jobs: runAt to the API's claim p50 {lag['claim_p50_ms']:.1f} ms "
              f"(p99 {lag['claim_p99_ms']:.1f}), the API's claim to the Python handler p50 "
              f"{lag['handover_p50_ms']:.1f} ms (p99 {lag['handover_p99_ms']:.1f})", flush=True)
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    main()
