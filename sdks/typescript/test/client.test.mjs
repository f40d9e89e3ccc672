// The client against a real Punctual: jobs run by dev's own Java worker (namespace default,
// built-in handlers noop, sleep, fail).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { Client, PunctualProblem, JobWaitTimeoutError } from "../src/index.js";
import { BASE_URL, freshNamespace, newKey } from "./support.mjs";

let client; // a submitter key of default: what a service would hold
let operator;

before(async () => {
  client = new Client({ baseUrl: BASE_URL, apiKey: await newKey("submitter", ["default"]), namespace: "default" });
  operator = new Client({ baseUrl: BASE_URL, apiKey: await newKey("operator", ["default"]), namespace: "default" });
});

test("submit, get and awaitFinal: a noop job SUCCEEDS, its traceparent kept", async () => {
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const job = await client.submit({ type: "noop", payload: { hello: "ts" }, tags: ["sdk-ts"] }, { traceparent });
  assert.match(job.id, /^[0-9a-f-]{36}$/);
  assert.ok(["PENDING", "RUNNING", "SUCCEEDED"].includes(job.status), job.status);
  assert.equal(job.traceparent, traceparent);
  const done = await client.awaitFinal(job.id, { timeoutMs: 20_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.equal(done.attempts, 1);
  assert.deepEqual(done.payload, { hello: "ts" });
  assert.deepEqual((await client.get(job.id)).status, "SUCCEEDED");
  const executions = await client.executions(job.id);
  assert.deepEqual(executions.map((e) => [e.attempt, e.status]), [[1, "SUCCEEDED"]]);
});

test("an idempotent repeat answers the first job; another body is a 409 idempotency-conflict", async () => {
  const key = `ts-idem-${Date.now()}`;
  const first = await client.submit({ type: "noop", idempotencyKey: key, delay: "PT1H" });
  const again = await client.submit({ type: "noop", idempotencyKey: key, delay: "PT1H" });
  assert.equal(again.id, first.id);
  await assert.rejects(client.submit({ type: "noop", idempotencyKey: key, delay: "PT1H", priority: "high" }), (e) => {
    assert.ok(e instanceof PunctualProblem);
    assert.equal(e.status, 409);
    assert.equal(e.kind, "idempotency-conflict");
    return true;
  });
  await operator.cancel(first.id);
});

test("awaitFinal gives up after timeoutMs with the job as last read", async () => {
  const job = await client.submit({ type: "noop", delay: "PT1H" });
  const started = performance.now();
  await assert.rejects(client.awaitFinal(job.id, { timeoutMs: 300 }), (e) => {
    assert.ok(e instanceof JobWaitTimeoutError);
    assert.equal(e.job.id, job.id);
    assert.equal(e.job.status, "PENDING");
    return true;
  });
  assert.ok(performance.now() - started < 5_000);
  await operator.cancel(job.id);
});

test("cancel: a delayed job is CANCELLED; cancelling it again is a 409 job-final problem", async () => {
  const job = await client.submit({ type: "noop", delay: "PT1H" });
  const cancelled = await operator.cancel(job.id);
  assert.equal(cancelled.status, "CANCELLED");
  assert.equal((await client.get(job.id)).status, "CANCELLED");
  await assert.rejects(operator.cancel(job.id), (e) => {
    assert.ok(e instanceof PunctualProblem);
    assert.equal(e.status, 409);
    assert.equal(e.type, "https://punctual.dev/problems/job-final");
    assert.equal(e.kind, "job-final");
    assert.ok(e.title.length > 0);
    return true;
  });
});

test("a submitter key may not cancel: 403 forbidden", async () => {
  const job = await client.submit({ type: "noop", delay: "PT1H" });
  await assert.rejects(client.cancel(job.id), (e) => e instanceof PunctualProblem && e.status === 403 && e.kind === "forbidden");
  await operator.cancel(job.id);
});

test("submitBatch stores every job in the order given, and all run", async () => {
  const jobs = await client.submitBatch([
    { type: "noop", payload: { n: 0 } },
    { type: "sleep", payload: { ms: 50 }, priority: "high" },
    { type: "noop", payload: { n: 2 } },
  ]);
  assert.deepEqual(jobs.map((j) => j.type), ["noop", "sleep", "noop"]);
  assert.equal(jobs[1].priority, "high");
  for (const j of jobs) assert.equal((await client.awaitFinal(j.id, { timeoutMs: 20_000 })).status, "SUCCEEDED");
});

test("a batch with one bad job stores none: 422 naming jobs[1].priority", async () => {
  await assert.rejects(client.submitBatch([{ type: "noop" }, { type: "noop", priority: "urgent" }]), (e) => {
    assert.equal(e.status, 422);
    assert.equal(e.kind, "invalid-request");
    assert.equal(e.field, "jobs[1].priority");
    assert.ok(e.errors.some((x) => x.field === "jobs[1].priority" && x.message.length > 0));
    return true;
  });
});

test("submitWorkflow: steps run in order of their dependencies; getWorkflow shows them", async () => {
  const wf = await client.submitWorkflow({
    jobs: [
      { ref: "a", type: "noop" },
      { ref: "b", type: "sleep", payload: { ms: 20 } },
      { ref: "c", type: "noop", dependsOn: [{ ref: "a" }, { ref: "b" }] },
    ],
  });
  assert.deepEqual(wf.jobs.map((s) => s.ref).sort(), ["a", "b", "c"]);
  const c = wf.jobs.find((s) => s.ref === "c");
  const done = await client.awaitFinal(c.id, { timeoutMs: 20_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.equal(done.workflowId, wf.id);
  const read = await client.getWorkflow(wf.id);
  assert.ok(read.jobs.every((s) => s.status === "SUCCEEDED"), JSON.stringify(read.jobs));
  const a = read.jobs.find((s) => s.ref === "a");
  assert.ok(Date.parse(a.finishedAt) <= Date.parse(read.jobs.find((s) => s.ref === "c").startedAt));
});

test("an invalid workflow is a 422 naming the step's field", async () => {
  await assert.rejects(
    client.submitWorkflow({ jobs: [{ ref: "a", type: "noop", dependsOn: [{ ref: "nope" }] }] }),
    (e) => e instanceof PunctualProblem && e.status === 422 && e.field === "jobs[0].dependsOn[0].ref",
  );
});

test("problems: 422 names every invalid field, 404 not-found, 401 for an unknown key", async () => {
  await assert.rejects(client.submit({ type: "noop", priority: "urgent", maxAttempts: 0 }), (e) => {
    assert.equal(e.status, 422);
    assert.equal(e.field, "priority");
    assert.deepEqual(e.errors.map((x) => x.field).sort(), ["maxAttempts", "priority"]);
    assert.match(e.message, /^422 /);
    return true;
  });
  await assert.rejects(client.get("00000000-0000-7000-8000-000000000000"), (e) => e.status === 404 && e.kind === "not-found");
  const stranger = new Client({ baseUrl: BASE_URL, apiKey: "pct_notakeyatall0000000000000000000000000000" });
  await assert.rejects(stranger.get("00000000-0000-7000-8000-000000000000"), (e) => e instanceof PunctualProblem && e.status === 401 && e.kind === "unauthorized");
});

test("a namespace the key may not act in is a 403 naming Punctual-Namespace", async () => {
  const other = await freshNamespace("client");
  const c = new Client({ baseUrl: BASE_URL, apiKey: await newKey("submitter", ["default"]), namespace: other });
  await assert.rejects(c.submit({ type: "noop" }), (e) => e.status === 403 && e.field === "Punctual-Namespace");
});

test("logs of a job never run: attempt null, no lines", async () => {
  const job = await client.submit({ type: "noop", delay: "PT1H" });
  const page = await client.logs(job.id);
  assert.equal(page.jobId, job.id);
  assert.equal(page.attempt, null);
  assert.deepEqual(page.lines, []);
  await operator.cancel(job.id);
});

test("an error answer that is not a problem (a proxy's 502 page) is a PunctualProblem of type about:blank", async () => {
  const { createServer } = await import("node:http");
  const proxy = createServer((req, res) => {
    res.writeHead(502, { "Content-Type": "text/html" });
    res.end("<html><body>Bad Gateway</body></html>");
  });
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
  try {
    const c = new Client({ baseUrl: `http://127.0.0.1:${proxy.address().port}`, apiKey: "pct_x" });
    await assert.rejects(c.get("00000000-0000-7000-8000-000000000000"), (e) => {
      assert.ok(e instanceof PunctualProblem);
      assert.equal(e.status, 502);
      assert.equal(e.type, "about:blank");
      assert.equal(e.title, "Bad Gateway");
      assert.match(e.detail, /Bad Gateway/);
      return true;
    });
  } finally {
    proxy.close();
  }
});
