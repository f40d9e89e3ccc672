// Faults with real processes: a TS worker killed mid-job, and one paused past its lease. The test
// Punctual takes a remote worker silent for 3 s (api.remoteWorkers.leaseTtl) for dead; its death
// watch then rescues the attempts within about worker.livenessTtl (5 s) more.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Client, Worker } from "../src/index.js";
import { BASE_URL, eventually, freshNamespace, meterCount, newKey, workerProcess } from "./support.mjs";

const cleanup = [];
after(async () => {
  for (const c of cleanup) await c();
});

async function setup(name) {
  const namespace = await freshNamespace(name);
  const client = new Client({ baseUrl: BASE_URL, apiKey: await newKey("operator", [namespace]), namespace });
  const workerKey = await newKey("worker", [namespace]);
  return { namespace, client, workerKey };
}

/** An in-process worker that finishes `hold` jobs at once, saying who ran them. */
async function rescuer(namespace, apiKey) {
  const worker = new Worker({
    baseUrl: BASE_URL,
    apiKey,
    namespace,
    logger: null,
    handlers: { hold: async (ctx) => ({ by: "rescuer", attempt: ctx.attempt }) },
  });
  cleanup.push(() => worker.stop({ timeoutMs: 2_000 }));
  await worker.start();
  return worker;
}

test("a TS worker process killed (SIGKILL) mid-job: its attempt is rescued (LOST) and run again by another worker", { timeout: 90_000 }, async () => {
  const { namespace, client, workerKey } = await setup("sigkill");
  const victim = workerProcess({ namespace, apiKey: workerKey, type: "hold", holdMs: 60_000 });
  cleanup.push(async () => victim.kill("SIGKILL"));
  await victim.waitFor(/^registered /);
  const job = await client.submit({ type: "hold", maxAttempts: 3 });
  const [, jobId, attempt, pid] = await victim.waitFor(/^started (\S+) (\d+) (\d+)/);
  assert.deepEqual([jobId, attempt, pid], [job.id, "1", String(victim.child.pid)]);
  // The claim is written once the attempt outlives worker.claimWriteAfter (250 ms).
  await eventually(async () => (await client.get(job.id)).status === "RUNNING", {
    timeoutMs: 3_000,
    what: "the attempt's claim written",
  });

  victim.kill("SIGKILL");
  const { signal } = await victim.exited;
  assert.equal(signal, "SIGKILL");
  const killedAt = performance.now();
  await rescuer(namespace, workerKey);

  const done = await client.awaitFinal(job.id, { timeoutMs: 45_000 });
  const rescuedIn = performance.now() - killedAt;
  assert.equal(done.status, "SUCCEEDED");
  assert.deepEqual(done.result, { by: "rescuer", attempt: 2 });
  assert.equal(done.attempts, 2);
  const executions = await client.executions(job.id);
  assert.deepEqual(executions.map((e) => [e.attempt, e.status]), [[1, "LOST"], [2, "SUCCEEDED"]]);
  console.log(`# SIGKILL: job done by another worker ${Math.round(rescuedIn)} ms after the kill`);
});

test("a TS worker paused (SIGSTOP) past its lease: its late completion is refused and counted, the rescue's result stands", { timeout: 90_000 }, async () => {
  const { namespace, client, workerKey } = await setup("sigstop");
  const paused = workerProcess({ namespace, apiKey: workerKey, type: "hold", holdMs: 1_500 });
  cleanup.push(async () => {
    paused.kill("SIGCONT");
    paused.kill("SIGKILL");
  });
  await paused.waitFor(/^registered /);
  const job = await client.submit({ type: "hold", maxAttempts: 3 });
  await paused.waitFor(new RegExp(`^started ${job.id} 1 `));
  const lateBefore = await meterCount("punctual.api.remoteWorkers.lateReports");

  paused.kill("SIGSTOP"); // mid-handler: it finishes 1.5 s of work once it runs again
  await rescuer(namespace, workerKey);
  const done = await client.awaitFinal(job.id, { timeoutMs: 45_000 });
  assert.equal(done.status, "SUCCEEDED");
  assert.deepEqual(done.result, { by: "rescuer", attempt: 2 });
  const executions = await client.executions(job.id);
  assert.deepEqual(executions.map((e) => [e.attempt, e.status]), [[1, "LOST"], [2, "SUCCEEDED"]]);

  paused.kill("SIGCONT");
  // Its handler ends and completes attempt 1 under its old registration: refused.
  const [, status] = await paused.waitFor(new RegExp(`completion of job ${job.id} attempt 1 refused \\((404|409) `), 20_000);
  assert.ok(["404", "409"].includes(status));
  await paused.waitFor(/registering again/, 10_000); // and it registers anew to go on working
  const lateAfter = await eventually(async () => {
    const n = await meterCount("punctual.api.remoteWorkers.lateReports");
    return n > lateBefore ? n : null;
  }, { what: "lateReports to count the refusal", timeoutMs: 5_000 });
  assert.ok(lateAfter > lateBefore);
  // The refused result changed nothing.
  const after = await client.get(job.id);
  assert.equal(after.status, "SUCCEEDED");
  assert.deepEqual(after.result, { by: "rescuer", attempt: 2 });
  assert.equal(after.attempts, 2);
  paused.kill("SIGTERM");
  await paused.waitFor(/^stopped /, 15_000); // a graceful stop after all that
  assert.equal((await paused.exited).code, 0);
});
