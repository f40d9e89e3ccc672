#!/usr/bin/env node
// One worker of each language drains no-op jobs from one Punctual, in the same run: the Java
// worker inside `punctual dev` (it claims from Redis and PostgreSQL itself), one Node worker of the
// TypeScript SDK (in this process) and one Python worker of the Python SDK (a python3 process),
// both over the worker protocol. Every round runs the three in turn, the order rotated each round,
// and the figures are the medians of the rounds; the ratios are each remote worker's rate to the
// Java worker's. Starts its own `punctual dev` (default settings, durable commits) from
// deploy/target/punctual.jar.
//
//   Java:   BENCH_JAVA_JOBS `noop` jobs in namespace `default`, all due at one moment a few seconds
//           ahead (submitted before it); jobs/s from that moment to the last one ended, read from
//           the admin port's punctual_jobs_ended_total, polled every 10 ms.
//   Node:   BENCH_REMOTE_JOBS jobs submitted first in a namespace of their own, then the worker
//           (concurrency 32) started; jobs/s from its start() to its last completion answered.
//   Python: the same, by `sdks/python/bench.py --drain-only --json` (one round per call).
//
// Options (environment): BENCH_ROUNDS (3), BENCH_JAVA_JOBS (20000), BENCH_REMOTE_JOBS (3000),
// BENCH_CONCURRENCY (32), BENCH_WARMUP (2000: jobs each worker drains first, not counted).
//
//   node sdks/bench.mjs
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, Worker } from "./typescript/src/index.js";
import { startPunctual } from "./typescript/test/punctual.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JAVA_JOBS = Number(process.env.BENCH_JAVA_JOBS ?? 20_000);
const REMOTE_JOBS = Number(process.env.BENCH_REMOTE_JOBS ?? 3_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);

const punctual = await startPunctual({ javaOpts: [] }); // the default settings: what users run
const { baseUrl, adminUrl, adminKey } = punctual;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function admin(route, body) {
  const res = await fetch(`${baseUrl}/api/v1${route}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Submits n jobs (1,000 a batch) of `fields` through `client`. */
async function submitMany(client, n, fields) {
  for (let i = 0; i < n; i += 1_000) {
    await client.submitBatch(Array.from({ length: Math.min(1_000, n - i) }, () => ({ ...fields })));
  }
}

/** punctual_jobs_ended_total of the Java worker's succeeded `noop` jobs in `default`. */
async function javaEnded() {
  const page = await (await fetch(`${adminUrl}/prometheus`)).text();
  const line = page
    .split("\n")
    .find((l) => l.startsWith("punctual_jobs_ended_total{") && l.includes('namespace="default"') && l.includes('type="noop"') && l.includes('outcome="succeeded"'));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

const javaClient = new Client({ baseUrl, namespace: "default", apiKey: adminKey });

async function java(n) {
  const before = await javaEnded();
  const lead = 2_000 + n / 4; // ms: time to submit them all before they are due
  const due = Date.now() + lead;
  await submitMany(javaClient, n, { type: "noop", runAt: new Date(due).toISOString() });
  if (Date.now() > due - 200) throw new Error(`the Java worker's ${n} jobs took longer than ${lead} ms to submit`);
  let ended = before;
  while (ended < before + n) {
    await sleep(10);
    ended = await javaEnded();
    if (Date.now() - due > 600_000) throw new Error(`Java: ${ended - before} of ${n} after 600 s`);
  }
  const seconds = (Date.now() - due) / 1000;
  return { jobs: n, seconds, perSecond: n / seconds };
}

async function node(n) {
  const namespace = `bench-node-${randomUUID().slice(0, 8)}`;
  await admin("/namespaces", { name: namespace });
  const client = new Client({ baseUrl, namespace, apiKey: adminKey });
  const apiKey = (await admin("/keys", { name: `${namespace}-w`, role: "worker", namespaces: [namespace] })).secret;
  await submitMany(client, n, { type: "noop" });
  const worker = new Worker({
    baseUrl,
    apiKey,
    namespace,
    concurrency: CONCURRENCY,
    handlers: { noop: async () => {} },
  });
  // Until the worker's own count of completions the API answered reaches n (polled every 2 ms).
  const t0 = performance.now();
  await worker.start();
  while (worker.stats.succeeded < n) {
    await sleep(2);
    if (performance.now() - t0 > 600_000) throw new Error(`Node: ${worker.stats.succeeded} of ${n} after 600 s`);
  }
  const last = performance.now();
  await worker.stop();
  const seconds = (last - t0) / 1000;
  return { jobs: n, seconds, perSecond: n / seconds };
}

function python(n) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      [path.join(HERE, "python/bench.py"), "--base-url", baseUrl, "--key", adminKey, "--jobs", String(n), "--rounds", "1", "--concurrency", String(CONCURRENCY), "--drain-only", "--json"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`python bench exited ${code}: ${out}`));
      const d = JSON.parse(out.trim().split("\n").at(-1));
      if (d.succeeded !== n) return reject(new Error(`Python: ${d.succeeded} of ${n} SUCCEEDED`));
      resolve({ jobs: n, seconds: d.seconds, perSecond: d.per_second });
    });
  });
}

const drains = { Java: () => java(JAVA_JOBS), Node: () => node(REMOTE_JOBS), Python: () => python(REMOTE_JOBS) };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

try {
  if (WARMUP > 0) {
    await java(WARMUP);
    await node(WARMUP);
    await python(WARMUP);
    console.log(`warm-up: ${WARMUP} jobs drained by each worker (not counted)`);
  }
  const rates = { Java: [], Node: [], Python: [] };
  const names = Object.keys(drains);
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    const line = [];
    for (const name of order) {
      const r = await drains[name]();
      rates[name].push(r.perSecond);
      line.push(`${name} ${Math.round(r.perSecond)} jobs/s (${r.jobs} in ${r.seconds.toFixed(2)} s)`);
    }
    console.log(`round ${round + 1}: ${line.join(", ")}`);
  }
  const javaMedian = median(rates.Java);
  for (const name of names) {
    const m = median(rates[name]);
    const ratios = rates[name].map((r, i) => (r / rates.Java[i]).toFixed(3)).join(", ");
    console.log(
      `${name}: median ${Math.round(m)} jobs/s of ${rates[name].map(Math.round).join(", ")}` +
        (name === "Java" ? "" : `; to Java, per round: ${ratios} (median ${(m / javaMedian).toFixed(3)})`),
    );
  }
} finally {
  await punctual.stop();
}
