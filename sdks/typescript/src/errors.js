// Errors of the SDK: problems the API answered, and the outcomes a handler can throw.

/**
 * An RFC 9457 problem the API answered (application/problem+json), or an error answer that was
 * not one (then `type` is "about:blank" and `title` the HTTP status text).
 */
export class PunctualProblem extends Error {
  constructor(problem, { method, url, retryAfter } = {}) {
    const status = problem.status;
    super(`${status} ${problem.title ?? ""}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.name = "PunctualProblem";
    this.status = status;
    this.type = problem.type ?? "about:blank";
    this.title = problem.title ?? "";
    this.detail = problem.detail ?? null;
    this.instance = problem.instance ?? null;
    this.field = problem.field ?? null;
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.retryAfterSeconds = retryAfter ?? null;
    this.method = method ?? null;
    this.url = url ?? null;
  }

  /** The kind after https://punctual.dev/problems/ ("invalid-request", "not-found", ...). */
  get kind() {
    const prefix = "https://punctual.dev/problems/";
    return this.type.startsWith(prefix) ? this.type.slice(prefix.length) : this.type;
  }
}

/** awaitFinal gave up: the job is not final yet. `job` is how it was last read. */
export class JobWaitTimeoutError extends Error {
  constructor(job, waitedMs) {
    super(`job ${job.id} still ${job.status} after ${waitedMs} ms`);
    this.name = "JobWaitTimeoutError";
    this.job = job;
    this.waitedMs = waitedMs;
  }
}

/** Thrown by a handler: the attempt fails and the job is not retried. */
export class NonRetryableError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "NonRetryableError";
  }
}

/** Thrown by a handler: the attempt fails, and its retry waits at least `retryAfterMs`. */
export class RetryAfterError extends Error {
  constructor(retryAfterMs, message = `retry after ${retryAfterMs} ms`, options) {
    super(message, options);
    if (!Number.isInteger(retryAfterMs) || retryAfterMs < 0) {
      throw new RangeError(`retryAfterMs must be a whole number of ms >= 0, not ${retryAfterMs}`);
    }
    this.name = "RetryAfterError";
    this.retryAfterMs = retryAfterMs;
  }
}
