// The client of the REST API: submit, read, wait for, cancel jobs; batches and workflows.
import { JobWaitTimeoutError } from "./errors.js";
import { connection, encode, request } from "./http.js";

/** Statuses a job never leaves. */
export const FINAL_STATUSES = Object.freeze(["SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED", "DEAD"]);

export class Client {
  #conn;

  /** @param {{baseUrl: string, apiKey?: string, namespace?: string, fetch?: typeof fetch}} options */
  constructor(options) {
    this.#conn = connection(options);
  }

  /** The namespace this client acts in (undefined: the key's default). */
  get namespace() {
    return this.#conn.namespace;
  }

  /** Submits one job; answers it stored (PENDING or BLOCKED), or the stored one for a repeat. */
  submit(job, { traceparent } = {}) {
    return request(this.#conn, "POST", "/jobs", { body: job, headers: traceHeader(traceparent) });
  }

  /** Submits up to api.maxBatchSize jobs, all or none; answers them in the order given. */
  async submitBatch(jobs, { traceparent } = {}) {
    const answer = await request(this.#conn, "POST", "/jobs/batch", {
      body: { jobs },
      headers: traceHeader(traceparent),
    });
    return answer.items;
  }

  /** Submits a workflow, a graph of steps naming each other by `ref`, all or none. */
  submitWorkflow(workflow) {
    return request(this.#conn, "POST", "/workflows", { body: workflow });
  }

  get(id) {
    return request(this.#conn, "GET", `/jobs/${encode(id)}`);
  }

  getWorkflow(id) {
    return request(this.#conn, "GET", `/workflows/${encode(id)}`);
  }

  /** Cancels a job not final yet (a 409 job-final problem otherwise); answers it CANCELLED. */
  cancel(id) {
    return request(this.#conn, "POST", `/jobs/${encode(id)}/cancel`);
  }

  cancelWorkflow(id) {
    return request(this.#conn, "POST", `/workflows/${encode(id)}/cancel`);
  }

  /** Its attempts, first first. */
  async executions(id) {
    return (await request(this.#conn, "GET", `/jobs/${encode(id)}/executions`)).items;
  }

  /** An attempt's log lines after `after` (default: the latest attempt that logged). */
  logs(id, { attempt, after, limit } = {}) {
    const q = new URLSearchParams();
    if (attempt !== undefined) q.set("attempt", String(attempt));
    if (after !== undefined) q.set("after", String(after));
    if (limit !== undefined) q.set("limit", String(limit));
    const query = q.size ? `?${q}` : "";
    return request(this.#conn, "GET", `/jobs/${encode(id)}/logs${query}`);
  }

  /**
   * Reads the job until it is final; throws JobWaitTimeoutError (carrying the job as last read)
   * after `timeoutMs`. Polls every `pollMs` at first, then up to 1 s apart.
   */
  async awaitFinal(id, { timeoutMs = 60_000, pollMs = 50, signal } = {}) {
    const started = performance.now();
    let wait = pollMs;
    for (;;) {
      const job = await this.get(id);
      if (FINAL_STATUSES.includes(job.status)) return job;
      const waited = performance.now() - started;
      if (waited >= timeoutMs) throw new JobWaitTimeoutError(job, Math.round(waited));
      signal?.throwIfAborted();
      await sleep(Math.min(wait, timeoutMs - waited));
      wait = Math.min(wait * 2, 1_000);
    }
  }
}

function traceHeader(traceparent) {
  return traceparent ? { traceparent } : {};
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
