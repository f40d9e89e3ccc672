#!/usr/bin/env node
// Measures one Node worker of this SDK against a real Punctual (`punctual dev`, started here from
// deploy/target/punctual.jar unless PUNCTUAL_BENCH_BASE_URL and PUNCTUAL_BENCH_ADMIN_KEY name one):
//   1. drain: N no-op jobs submitted first (batches of 1,000), then one worker (concurrency 32)
//      started; jobs/s from its start() to its last recorded completion;
//   2. start lag: jobs submitted at a fixed rate, one request each, while the worker long-polls;
//      lag = handler start - the moment the submit was sent, p50/p95/p99/max.
// Options (environment): BENCH_JOBS (5000), BENCH_CONCURRENCY (32), BENCH_RATE (200 /s),
// BENCH_SECONDS (20), BENCH_WARMUP (2000 jobs drained first, not measured: the API's JIT warms up).
import { randomUUID } from "node:crypto";
import { Client, Worker } from "./src/index.js";
import { startPunctual } from "./test/punctual.mjs";

const JOBS = Number(process.env.BENCH_JOBS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);

let punctual = null;
let baseUrl = process.env.PUNCTUAL_BENCH_BASE_URL;
let adminKey = process.env.PUNCTUAL_BENCH_ADMIN_KEY;
if (!baseUrl) {
  punctual = await startPunctual({ javaOpts: [] }); // the default settings: what users run
  ({ baseUrl, adminKey } = punctual);
}

async function admin(route, body) {
  const res = await fetch(`${baseUrl}/api/v1${route}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

const namespace = `bench-${randomUUID().slice(0, 8)}`;
await admin("/namespaces", { name: namespace });
const client = new Client({ baseUrl, namespace, apiKey: (await admin("/keys", { name: `${namespace}-s`, role: "submitter", namespaces: [namespace] })).secret });
const workerKey = (await admin("/keys", { name: `${namespace}-w`, role: "worker", namespaces: [namespace] })).secret;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Submits n jobs of `type`, 1,000 a batch. */
async function submitMany(n, type) {
  for (let i = 0; i < n; i += 1_000) {
    await client.submitBatch(Array.from({ length: Math.min(1_000, n - i) }, () => ({ type })));
  }
}

/** Runs a worker of `type` until it has completed n jobs; answers the ms from its start(). */
async function drain(n, type, count) {
  const worker = new Worker({ baseUrl, apiKey: workerKey, namespace, concurrency: CONCURRENCY, handlers: { [type]: async () => void count() } });
  const t0 = performance.now();
  await worker.start();
  while (worker.stats.succeeded < n) await new Promise((r) => setTimeout(r, 5));
  const ms = performance.now() - t0;
  await worker.stop();
  return { ms, refused: worker.stats.refused };
}

try {
  if (WARMUP > 0) {
    await submitMany(WARMUP, "warmup");
    const w = await drain(WARMUP, "warmup", () => {});
    console.log(`warm-up: ${WARMUP} jobs at ${Math.round((WARMUP / w.ms) * 1000)} jobs/s (not counted)`);
  }
  // 1. Drain.
  await submitMany(JOBS, "drain");
  let handled = 0;
  const { ms: drainMs, refused } = await drain(JOBS, "drain", () => handled++);
  console.log(
    `drain: ${JOBS} no-op jobs, 1 worker, concurrency ${CONCURRENCY}: ${Math.round(drainMs)} ms, ` +
      `${Math.round((JOBS / drainMs) * 1000)} jobs/s (handled ${handled}, refused ${refused})`,
  );

  // 2. Start lag at a fixed rate, through the long poll.
  const lags = [];
  const lagger = new Worker({
    baseUrl,
    apiKey: workerKey,
    namespace,
    concurrency: CONCURRENCY,
    handlers: {
      lag: async (ctx) => {
        lags.push(Date.now() - ctx.payload.sentAt);
      },
    },
  });
  await lagger.start();
  await new Promise((r) => setTimeout(r, 500)); // its first long poll is waiting
  const total = RATE * SECONDS;
  const start = performance.now();
  const submits = [];
  let late = 0;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -50) late++;
    submits.push(client.submit({ type: "lag", payload: { sentAt: Date.now() } }));
  }
  await Promise.all(submits);
  const sent = performance.now() - start;
  const until = performance.now() + 30_000;
  while (lags.length < total && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  await lagger.stop();
  const sorted = [...lags].sort((a, b) => a - b);
  console.log(
    `start lag: ${total} jobs at ${RATE}/s for ${SECONDS} s (sent in ${Math.round(sent)} ms, ${late} sent >50 ms late), ` +
      `${lags.length} started: p50 ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, ` +
      `p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms (submit sent -> handler start)`,
  );
} finally {
  await punctual?.stop();
}
