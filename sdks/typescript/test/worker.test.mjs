// The TypeScript worker against a real Punctual, over the worker protocol. Each test has a
// namespace of its own, a `worker` key for the worker and an `operator` key for the client.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Client, Worker, NonRetryableError, RetryAfterError } from "../src/index.js";
import { BASE_URL, admin, eventually, freshNamespace, newKey } from "./support.mjs";

const quiet = { warn() {}, error() {} };
const workers = [];
after(() => Promise.all(workers.map((w) => w.stop({ timeoutMs: 2_000 }))));

/** A namespace, a client of it and a started worker with `handlers`. */
async function setup(name, handlers, options = {}) {
  const namespace = await freshNamespace(name);
  const client = new Client({ baseUrl: BASE_URL, apiKey: await newKey("operator", [namespace]), namespace });
  const worker = new Worker({ baseUrl: BASE_URL, apiKey: await newKey("worker", [namespace]), namespace, handlers, logger: quiet, ...options });
  workers.push(worker);
  const registration = await worker.start();
  return { namespace, client, worker, registration };
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test("a TS worker runs a job: its result stored, progress and log lines shown while it runs and after", async () => {
  const observed = deferred();
  const seen = {};
  const { client, registration } = await setup("run", {
    echo: async (ctx) => {
      Object.assign(seen, { jobId: ctx.jobId, attempt: ctx.attempt, traceparent: ctx.traceparent, aborted: ctx.signal.aborted });
      ctx.progress(1, 4);
      ctx.log("step 1 of 4");
      await observed.promise; // the test saw the progress on the job: heartbeats carry it
      ctx.log("step 2 of 4");
      ctx.log("done");
      ctx.progress(4, 4);
      return { echoed: ctx.payload, attempt: ctx.attempt };
    },
  });
  assert.equal(registration.heartbeatIntervalMs, 1_000, "the test Punctual runs with heartbeatInterval PT1S");
  assert.equal(registration.leaseTtlMs, 3_000);

  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const job = await client.submit({ type: "echo", payload: { n: 42 } }, { traceparent });
  const running = await eventually(async () => {
    const j = await client.get(job.id);
    return j.progress?.done === 1 ? j : null;
  }, { what: "progress 1/4 on the running job", timeoutMs: 10_000 });
  assert.equal(running.status, "RUNNING");
  assert.deepEqual({ attempt: running.progress.attempt, done: running.progress.done, total: running.progress.total, percent: running.progress.percent }, { attempt: 1, done: 1, total: 4, percent: 25 });
  const live = await eventually(async () => {
    const page = await client.logs(job.id);
    return page.lines.length >= 1 ? page : null;
  }, { what: "the first log line while running" });
  assert.equal(live.lines[0].line, "step 1 of 4");
  observed.resolve();

  const done = await client.awaitFinal(job.id, { timeoutMs: 10_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.deepEqual(done.result, { echoed: { n: 42 }, attempt: 1 });
  assert.equal(done.workerId, registration.id);
  assert.deepEqual(seen, { jobId: job.id, attempt: 1, traceparent, aborted: false });
  // The last reports were sent before the completion; the API writes them within
  // worker.outputFlushInterval (250 ms), so they may show just after the job is final.
  const last = await eventually(async () => {
    const j = await client.get(job.id);
    return j.progress?.done === 4 ? j : null;
  }, { what: "the final progress 4/4", timeoutMs: 5_000 });
  assert.equal(last.progress.percent, 100);
  const page = await eventually(async () => {
    const p = await client.logs(job.id, { attempt: 1 });
    return p.lines.length === 3 ? p : null;
  }, { what: "three log lines", timeoutMs: 5_000 });
  assert.deepEqual(page.lines.map((l) => l.line), ["step 1 of 4", "step 2 of 4", "done"]);
  assert.deepEqual(page.lines.map((l) => l.seq), [1, 2, 3]);
  const rest = await client.logs(job.id, { attempt: 1, after: page.lines[0].seq });
  assert.deepEqual(rest.lines.map((l) => l.line), ["step 2 of 4", "done"]);
});

test("a handler that throws fails the attempt, retryably: the job SUCCEEDS on attempt 2", async () => {
  const { client } = await setup("retry", {
    flaky: async (ctx) => {
      if (ctx.attempt === 1) throw new Error("planned failure of attempt 1");
      return { attempt: ctx.attempt };
    },
  });
  const job = await client.submit({ type: "flaky", maxAttempts: 3, backoff: { strategy: "fixed", delay: "PT0.1S" } });
  const done = await client.awaitFinal(job.id, { timeoutMs: 15_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.deepEqual(done.result, { attempt: 2 });
  const executions = await client.executions(job.id);
  assert.deepEqual(executions.map((e) => [e.attempt, e.status]), [[1, "FAILED"], [2, "SUCCEEDED"]]);
  assert.match(executions[0].error, /planned failure of attempt 1/);
});

test("ctx.followUp: stored with the attempt's success as the job's children; a failed attempt's are dropped", async () => {
  const ran = [];
  const { client, namespace } = await setup("followups", {
    parent: async (ctx) => {
      ctx.followUp({ type: "child", payload: { n: ctx.payload.n, attempt: ctx.attempt }, tags: ["fu"] });
      if (ctx.attempt === 1) throw new Error("planned failure: this attempt's follow-up is dropped");
      return { spawned: 1 };
    },
    child: async (ctx) => {
      ran.push(ctx.payload);
    },
  });
  const job = await client.submit({ type: "parent", payload: { n: 7 }, maxAttempts: 2, backoff: { strategy: "fixed", delay: "PT0.1S" } });
  assert.equal((await client.awaitFinal(job.id, { timeoutMs: 15_000 })).status, "SUCCEEDED");
  const children = await eventually(async () => {
    const r = await admin("GET", `/jobs/${job.id}/children`, { namespace });
    return r.body.items.length === 1 && r.body.items[0].status === "SUCCEEDED" && r.body.items;
  }, { what: "the follow-up ran" });
  assert.equal(children[0].type, "child");
  assert.equal(children[0].parentId, job.id);
  assert.deepEqual(children[0].tags, ["fu"]);
  assert.deepEqual(ran, [{ n: 7, attempt: 2 }]);
});

test("a NonRetryableError fails the job at once, attempts left or not", async () => {
  const { client, worker } = await setup("nonretry", {
    bad: async () => {
      throw new NonRetryableError("the payload can never work");
    },
  });
  const job = await client.submit({ type: "bad", maxAttempts: 5, backoff: { strategy: "fixed", delay: "PT0.1S" } });
  const done = await client.awaitFinal(job.id, { timeoutMs: 15_000 });
  assert.equal(done.status, "FAILED");
  assert.equal(done.attempts, 1);
  assert.match(done.lastError, /the payload can never work/);
  assert.equal(worker.stats.failed, 1);
});

test("a RetryAfterError(ms) delays the retry at least that long, beyond a shorter backoff", async () => {
  const times = [];
  const { client } = await setup("retryafter", {
    later: async (ctx) => {
      times.push(Date.now());
      if (ctx.attempt === 1) throw new RetryAfterError(1_500, "rate limited upstream");
      return "ok";
    },
  });
  const job = await client.submit({ type: "later", maxAttempts: 3, backoff: { strategy: "fixed", delay: "PT0.1S" } });
  const done = await client.awaitFinal(job.id, { timeoutMs: 15_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.equal(done.result, "ok");
  assert.equal(times.length, 2);
  assert.ok(times[1] - times[0] >= 1_400, `attempt 2 began ${times[1] - times[0]} ms after attempt 1 failed`);
});

test("a cancel reaches ctx.signal; the stopped attempt is not completed", async () => {
  const started = deferred();
  let reason = null;
  const { client, worker } = await setup("cancel", {
    wait: async (ctx) => {
      started.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      reason = ctx.signal.reason;
      throw ctx.signal.reason;
    },
  });
  const job = await client.submit({ type: "wait" });
  await started.promise;
  const t0 = performance.now();
  const cancelled = await client.cancel(job.id);
  assert.equal(cancelled.status, "CANCELLED");
  await eventually(() => reason, { what: "ctx.signal aborted", timeoutMs: 5_000 });
  const lag = performance.now() - t0;
  assert.equal(reason.name, "AbortError");
  // The cancel comes with a heartbeat's answer (every 1 s here); 4 s leaves room for a busy machine.
  assert.ok(lag < 4_000, `the cancel reached the handler after ${Math.round(lag)} ms (heartbeat 1 s)`);
  await eventually(() => worker.running === 0, { what: "the slot freed" });
  assert.equal(worker.stats.stopped, 1);
  assert.equal(worker.stats.refused, 0);
  assert.equal((await client.get(job.id)).status, "CANCELLED");
});

test("a job's timeout aborts ctx.signal; the attempt is TIMED_OUT", async () => {
  let reason = null;
  const { client } = await setup("timeout", {
    slow: async (ctx) => {
      assert.ok(ctx.deadline instanceof Date);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      reason = ctx.signal.reason;
      throw reason;
    },
  });
  const job = await client.submit({ type: "slow", timeout: "PT1S", maxAttempts: 1 });
  const done = await client.awaitFinal(job.id, { timeoutMs: 15_000 });
  assert.equal(done.status, "FAILED");
  assert.ok(reason && ["TimeoutError", "AbortError"].includes(reason.name), String(reason));
  const [execution] = await client.executions(job.id);
  assert.equal(execution.status, "TIMED_OUT");
});

test("concurrency bounds the attempts run at once; all run", async () => {
  let now = 0;
  let most = 0;
  const { client, worker } = await setup("concurrency", {
    nap: async () => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, 200));
      now--;
    },
  }, { concurrency: 4 });
  const jobs = await client.submitBatch(Array.from({ length: 12 }, () => ({ type: "nap" })));
  for (const j of jobs) assert.equal((await client.awaitFinal(j.id, { timeoutMs: 20_000 })).status, "SUCCEEDED");
  // Never more than 4 at once; several at once (4 unless the machine is very busy).
  assert.ok(most <= 4 && most >= 2, `at most ${most} at once`);
  assert.equal(worker.stats.succeeded, 12);
});

test("stop() is graceful: no more claims, the running handler finishes, then the registration is deleted", async () => {
  const started = deferred();
  let finishedAt = 0;
  const { client, worker, namespace } = await setup("stop", {
    work: async () => {
      started.resolve();
      await new Promise((r) => setTimeout(r, 1_500));
      finishedAt = performance.now();
      return "finished";
    },
  });
  const oldId = worker.id;
  const job = await client.submit({ type: "work" });
  await started.promise;
  await worker.stop();
  const stoppedAt = performance.now();
  assert.ok(finishedAt > 0 && finishedAt <= stoppedAt, "stop() resolved before the handler finished");
  const done = await client.awaitFinal(job.id, { timeoutMs: 5_000 }); // the completion is written within ms
  assert.equal(done.status, "SUCCEEDED");
  assert.equal(done.result, "finished");
  // The registration is gone: its id is unknown to the API.
  const res = await fetch(`${BASE_URL}/api/v1/workers/${oldId}/heartbeat`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await newKey("worker", [namespace])}`, "Punctual-Namespace": namespace, "Content-Type": "application/json" },
    body: JSON.stringify({ attempts: [] }),
  });
  assert.equal(res.status, 404);
  // And it claims nothing more.
  const later = await client.submit({ type: "work" });
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal((await client.get(later.id)).status, "PENDING");
  assert.equal(worker.stats.claimed, 1);
  await client.cancel(later.id);
});

test("a worker whose registration the API forgot (404) registers again and goes on running jobs", async () => {
  const { client, worker, namespace } = await setup("reregister", { ping: async () => "pong" });
  const first = worker.id;
  // Delete its registration behind its back, as the API does to a worker it took for dead.
  const del = await fetch(`${BASE_URL}/api/v1/workers/${first}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${await newKey("worker", [namespace])}`, "Punctual-Namespace": namespace, "Content-Type": "application/json" },
  });
  assert.equal(del.status, 202);
  await eventually(() => worker.id !== first, { what: "a new registration", timeoutMs: 10_000 });
  assert.equal(worker.stats.reregistered, 1);
  const job = await client.submit({ type: "ping" });
  const done = await client.awaitFinal(job.id, { timeoutMs: 15_000 });
  assert.equal(done.result, "pong");
  assert.equal(done.workerId, worker.id);
});

test("250 log lines logged at once all arrive, 100 a heartbeat, in order", async () => {
  const { client } = await setup("manylines", {
    chatty: async (ctx) => {
      for (let i = 1; i <= 250; i++) ctx.log(`line ${i}`);
      ctx.log("x".repeat(5_000)); // cut at 4,096
      return { lines: 250 };
    },
  });
  const job = await client.submit({ type: "chatty" });
  assert.equal((await client.awaitFinal(job.id, { timeoutMs: 15_000 })).status, "SUCCEEDED");
  const page = await eventually(async () => {
    const p = await client.logs(job.id, { attempt: 1 });
    return p.lines.length === 251 ? p : null;
  }, { what: "251 lines", timeoutMs: 5_000 });
  assert.deepEqual(page.lines.slice(0, 250).map((l) => l.line), Array.from({ length: 250 }, (_, i) => `line ${i + 1}`));
  assert.equal(page.lines[250].line.length, 4_096);
});

test("bad options, bad progress and bad follow-ups are refused where they are made", async () => {
  assert.throws(() => new Worker({ baseUrl: BASE_URL, handlers: {} }), TypeError);
  assert.throws(() => new Worker({ baseUrl: "localhost:8080", handlers: { a: async () => {} } }), TypeError);
  assert.throws(() => new Worker({ baseUrl: BASE_URL, handlers: { a: async () => {} }, concurrency: 0 }), RangeError);
  assert.throws(() => new Worker({ baseUrl: BASE_URL, handlers: { a: "not a function" } }), TypeError);
  assert.throws(() => new RetryAfterError(-1), RangeError);
  const errors = [];
  const { client } = await setup("badprogress", {
    p: async (ctx) => {
      for (const args of [[101], [-1], [5, 4], [1.5, 4], [1, 0]]) {
        try {
          ctx.progress(...args);
        } catch (e) {
          errors.push(e.name);
        }
      }
      for (const job of [null, {}, { type: 7 }]) {
        try {
          ctx.followUp(job);
        } catch (e) {
          errors.push(e.name);
        }
      }
      ctx.progress(2, 4);
      return "ok";
    },
  });
  const job = await client.submit({ type: "p" });
  assert.equal((await client.awaitFinal(job.id, { timeoutMs: 15_000 })).status, "SUCCEEDED");
  assert.deepEqual(errors, ["RangeError", "RangeError", "RangeError", "RangeError", "RangeError", "TypeError", "TypeError", "TypeError"]);
  const j = await eventually(async () => {
    const x = await client.get(job.id);
    return x.progress ? x : null;
  }, { what: "progress 2/4" });
  assert.equal(j.progress.percent, 50);
});

test("stop() called while start() is registering waits for it, then deletes the registration", async () => {
  const namespace = await freshNamespace("stopearly");
  const apiKey = await newKey("worker", [namespace]);
  const worker = new Worker({ baseUrl: BASE_URL, apiKey, namespace, logger: quiet, handlers: { a: async () => {} } });
  const started = worker.start();
  await worker.stop();
  const registration = await started;
  assert.equal(worker.id, registration.id);
  const res = await fetch(`${BASE_URL}/api/v1/workers/${registration.id}/heartbeat`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Punctual-Namespace": namespace, "Content-Type": "application/json" },
    body: JSON.stringify({ attempts: [] }),
  });
  assert.equal(res.status, 404);
  assert.equal(worker.stats.claimed, 0);
  await assert.rejects(worker.start(), /already stopped/);
});
