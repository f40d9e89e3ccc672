// What the tests share: the Punctual that test/run.mjs started, namespaces and keys of their own,
// waiting for a condition, worker processes.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { SDK_DIR } from "./punctual.mjs";

export const BASE_URL = process.env.PUNCTUAL_TEST_BASE_URL;
export const ADMIN_URL = process.env.PUNCTUAL_TEST_ADMIN_URL;
export const ADMIN_KEY = process.env.PUNCTUAL_TEST_ADMIN_KEY;
if (!BASE_URL || !ADMIN_KEY) {
  throw new Error("no Punctual to test against: run `npm test` (it starts one), or set PUNCTUAL_TEST_BASE_URL and PUNCTUAL_TEST_ADMIN_KEY");
}

/** A request with the admin key, answering {status, body}. */
export async function admin(method, route, { body, namespace } = {}) {
  const headers = { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" };
  if (namespace) headers["Punctual-Namespace"] = namespace;
  const res = await fetch(`${BASE_URL}/api/v1${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A namespace no other test uses. */
export async function freshNamespace(prefix) {
  const name = `ts-${prefix}-${randomUUID().slice(0, 8)}`;
  const r = await admin("POST", "/namespaces", { body: { name } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return name;
}

/** The secret of a new key of `role` for `namespaces`. */
export async function newKey(role, namespaces) {
  const r = await admin("POST", "/keys", { body: { name: `ts-${role}-${randomUUID().slice(0, 8)}`, role, namespaces } });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.secret;
}

/** Calls `probe` until it answers something truthy; answers that. */
export async function eventually(probe, { timeoutMs = 20_000, intervalMs = 50, what = "the condition" } = {}) {
  const until = performance.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (performance.now() > until) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The count of a meter on the admin port's /metrics (Dropwizard's JSON). */
export async function meterCount(name) {
  const res = await fetch(`${ADMIN_URL}/metrics`);
  const metrics = await res.json();
  return metrics.meters?.[name]?.count ?? 0;
}

/**
 * A worker in a process of its own (test/fixtures/worker-process.mjs), to kill or pause. `lines`
 * is what it printed; waitFor(regex) resolves with the first line matching.
 */
export function workerProcess({ namespace, apiKey, type, holdMs = 60_000, concurrency = 1 }) {
  const child = spawn(process.execPath, [path.join(SDK_DIR, "test/fixtures/worker-process.mjs")], {
    env: { ...process.env, W_NAMESPACE: namespace, W_KEY: apiKey, W_TYPE: type, W_HOLD_MS: String(holdMs), W_CONCURRENCY: String(concurrency) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = [];
  const waiters = [];
  let buffered = "";
  const onData = (chunk) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        const m = w.re.exec(line);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    exited,
    waitFor(re, timeoutMs = 20_000) {
      const seen = lines.map((l) => re.exec(l)).find(Boolean);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { re, resolve };
        waiters.push(w);
        setTimeout(() => {
          if (waiters.includes(w)) reject(new Error(`worker process printed no ${re} within ${timeoutMs} ms; it printed:\n${lines.join("\n")}`));
        }, timeoutMs).unref();
      });
    },
    kill(signal = "SIGKILL") {
      child.kill(signal);
    },
  };
}
