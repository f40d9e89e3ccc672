// A worker of the worker protocol (docs/worker-protocol.md): register, long-poll claims for its
// free slots, heartbeat what it holds (with progress and log lines), complete each attempt fenced
// by its number, DELETE to stop.
import { connection, encode, request } from "./http.js";
import { PunctualProblem } from "./errors.js";

const MAX_LINES_PER_BEAT = 100; // the API's cap per attempt and heartbeat
const MAX_LINE_CHARS = 4_096; // the API cuts longer lines: cut them before sending
const MAX_BUFFERED_LINES = 10_000; // per attempt; beyond, lines are dropped (and counted)
const MAX_ERROR_CHARS = 10_000; // a completion's error
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
const MAX_FOLLOW_UPS = 1_000; // a completion's follow-ups (the API's cap)
const COMPLETE_TRIES = 3;

export class Worker {
  #conn;
  #handlers;
  #concurrency;
  #waitMs;
  #logger;
  #state = "new"; // new, running, stopping (handlers finishing), closing (deleting), stopped
  #registration = null;
  #registering = null;
  #running = new Map(); // `${jobId}/${attempt}` -> Held
  #claimAbort = null;
  #claimLoop = null;
  #slotFreed = null;
  #beatTimer = null;
  #beating = null;
  #starting = null;
  #stopping = null;
  #stats = { claimed: 0, succeeded: 0, failed: 0, refused: 0, stopped: 0, reregistered: 0, droppedLogLines: 0 };

  constructor({ baseUrl, apiKey, namespace, handlers, concurrency = 1, waitMs = 20_000, logger = console, fetch } = {}) {
    this.#conn = connection({ baseUrl, apiKey, namespace, fetch });
    if (!handlers || typeof handlers !== "object" || Object.keys(handlers).length === 0) {
      throw new TypeError('handlers must map at least one job type to a function: { "resize": async (ctx) => ... }');
    }
    for (const [type, fn] of Object.entries(handlers)) {
      if (typeof fn !== "function") throw new TypeError(`handlers["${type}"] must be a function`);
    }
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
      throw new RangeError(`concurrency must be a whole number from 1 to 1000, not ${concurrency}`);
    }
    if (!Number.isInteger(waitMs) || waitMs < 0) {
      throw new RangeError(`waitMs must be a whole number of ms >= 0, not ${waitMs}`);
    }
    this.#handlers = { ...handlers };
    this.#concurrency = concurrency;
    this.#waitMs = waitMs;
    this.#logger = logger ?? { warn() {}, error() {} };
  }

  /** Its id at the API (it changes when it registers again); null before start(). */
  get id() {
    return this.#registration?.id ?? null;
  }

  /** The API's answer to its registration: id, intervals. */
  get registration() {
    return this.#registration;
  }

  /** How many attempts it runs now. */
  get running() {
    return this.#running.size;
  }

  /** Counters since start: claimed, succeeded, failed, refused (completions the API refused), ... */
  get stats() {
    return { ...this.#stats };
  }

  /** Registers and starts claiming; resolves with the registration. */
  start() {
    if (this.#state !== "new") return Promise.reject(new Error(`worker already ${this.#state}`));
    this.#state = "running";
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start() {
    try {
      this.#registration = await this.#register();
    } catch (e) {
      this.#state = "stopped";
      throw e;
    }
    this.#scheduleBeat();
    this.#claimLoop = this.#claimForever();
    return this.#registration;
  }

  /**
   * Stops gracefully: claims no more, lets running handlers finish (after `timeoutMs`, aborts their
   * signals and waits for them still), then deletes its registration.
   */
  stop({ timeoutMs } = {}) {
    if (this.#state === "new") {
      this.#state = "stopped";
      return Promise.resolve();
    }
    this.#stopping ??= this.#stop(timeoutMs);
    return this.#stopping;
  }

  async #stop(timeoutMs) {
    this.#state = "stopping";
    try {
      await this.#starting; // stop() called while it registers: let it finish, then undo it
    } catch {
      this.#state = "stopped"; // it never registered
      return;
    }
    this.#claimAbort?.abort();
    this.#wake();
    await this.#claimLoop;
    const finished = Promise.all([...this.#running.values()].map((h) => h.finished));
    if (timeoutMs !== undefined) {
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs, "late")));
      if ((await Promise.race([finished, late])) === "late") {
        for (const h of this.#running.values()) h.abort(abortError("the worker is stopping"));
      }
      clearTimeout(timer);
    }
    await finished;
    this.#state = "closing"; // no more heartbeats, no more registering
    clearTimeout(this.#beatTimer);
    await this.#beating;
    await this.#registering;
    try {
      await request(this.#conn, "DELETE", `/workers/${encode(this.#registration.id)}`);
    } catch (e) {
      if (!(e instanceof PunctualProblem && e.status === 404)) throw e;
    } finally {
      this.#state = "stopped";
    }
  }

  #register() {
    return request(this.#conn, "POST", "/workers", {
      body: { types: Object.keys(this.#handlers), concurrency: this.#concurrency },
    });
  }

  /**
   * The API no longer knows registration `oldId` (it took this worker for dead, or restarted):
   * registers again, once however many requests found out. Attempts held under the old id are
   * rescued by the API and run again: their signals are aborted.
   */
  async #reregister(oldId) {
    if (this.#registration.id === oldId && !this.#registering) {
      this.#registering = (async () => {
        this.#logger.warn?.(`punctual worker ${oldId}: the API no longer knows it; registering again`);
        for (const h of this.#running.values()) {
          if (h.workerId === oldId) h.abort(abortError("the API took this worker for dead: the attempt is run again elsewhere"));
        }
        // A long poll on the old registration would wait out its waitMs for nothing.
        this.#claimAbort?.abort();
        // Only while running: a stopping worker has nothing to gain from a new registration.
        for (let wait = 200; this.#state === "running"; wait = Math.min(wait * 2, 5_000)) {
          try {
            this.#registration = await this.#register();
            this.#stats.reregistered++;
            return;
          } catch (e) {
            this.#logger.warn?.(`punctual worker: registering again failed: ${e.message}`);
            await sleep(wait);
          }
        }
      })().finally(() => (this.#registering = null));
    }
    await this.#registering;
  }

  async #claimForever() {
    let wait = 100;
    while (this.#state === "running") {
      const free = this.#concurrency - this.#running.size;
      if (free <= 0) {
        await new Promise((resolve) => (this.#slotFreed = resolve));
        continue;
      }
      const id = this.#registration.id;
      const abort = (this.#claimAbort = new AbortController());
      let attempts;
      try {
        const waitMs = Math.min(this.#waitMs, this.#registration.maxWaitMs ?? this.#waitMs);
        ({ attempts } = await request(this.#conn, "POST", `/workers/${encode(id)}/claim`, {
          body: { max: free, waitMs },
          signal: abort.signal,
        }));
        wait = 100;
      } catch (e) {
        if (abort.signal.aborted) continue; // stopping, or registered again: the loop decides
        if (e instanceof PunctualProblem && e.status === 404) {
          await this.#reregister(id);
          continue;
        }
        this.#logger.warn?.(`punctual worker ${id}: claim failed (${e.message}); again in ${wait} ms`);
        await sleep(wait);
        wait = Math.min(wait * 2, 5_000);
        continue;
      }
      for (const a of attempts) this.#run(a, id);
    }
  }

  #wake() {
    const wake = this.#slotFreed;
    this.#slotFreed = null;
    wake?.();
  }

  #run(claimed, workerId) {
    this.#stats.claimed++;
    const handler = this.#handlers[claimed.type];
    const held = new Held(claimed, workerId, this.#stats);
    const key = `${claimed.jobId}/${claimed.attempt}`;
    this.#running.set(key, held);
    held.finished = (async () => {
      let outcome;
      try {
        if (!handler) throw new NonRetryable(`no handler for type ${claimed.type}`);
        const result = await handler(held.context());
        outcome = { status: "succeeded" };
        if (result !== undefined) outcome.result = result;
        if (held.followUps.length > 0) outcome.followUps = held.followUps;
      } catch (e) {
        outcome = failure(e);
      }
      held.done = true;
      held.clearTimer();
      try {
        if (held.stopped) {
          this.#stats.stopped++; // cancelled, timed out or lost: the API refuses its result
        } else {
          await this.#complete(held, outcome);
        }
      } finally {
        this.#running.delete(key);
        this.#wake();
      }
    })();
  }

  async #complete(held, outcome) {
    await held.inFlight?.catch(() => {});
    // What the handler reported since the last heartbeat goes first, so that it shows on the job.
    while (held.hasNews()) {
      try {
        await this.#beat([held], held.workerId);
      } catch (e) {
        this.#logger.warn?.(`punctual worker: last progress and lines of job ${held.jobId} not sent: ${e.message}`);
        break;
      }
    }
    if (held.stopped) {
      this.#stats.stopped++; // the last heartbeat's answer said to stop it: a completion is refused
      return;
    }
    const body = { jobId: held.jobId, attempt: held.attempt, ...outcome };
    for (let tries = 1; ; tries++) {
      try {
        await request(this.#conn, "POST", `/workers/${encode(held.workerId)}/complete`, { body });
        this.#stats[outcome.status === "succeeded" ? "succeeded" : "failed"]++;
        return;
      } catch (e) {
        if (e instanceof PunctualProblem && (e.status === 404 || e.status === 409)) {
          // The fence: the attempt is no longer this worker's (cancelled, timed out, rescued).
          this.#stats.refused++;
          this.#logger.warn?.(
            `punctual worker ${held.workerId}: completion of job ${held.jobId} attempt ${held.attempt} refused (${e.status} ${e.kind})`,
          );
          return;
        }
        if (tries >= COMPLETE_TRIES || (e instanceof PunctualProblem && e.status < 500)) {
          this.#logger.error?.(`punctual worker: completion of job ${held.jobId} attempt ${held.attempt} failed: ${e.message}`);
          return;
        }
        await sleep(200 * tries);
      }
    }
  }

  #scheduleBeat() {
    const interval = this.#registration?.heartbeatIntervalMs ?? 5_000;
    this.#beatTimer = setTimeout(() => {
      this.#beating = this.#beatAll().finally(() => {
        this.#beating = null;
        if (this.#state === "running" || this.#state === "stopping") this.#scheduleBeat();
      });
    }, interval);
  }

  /** One heartbeat for everything it holds; sent even when it holds nothing, to stay alive. */
  async #beatAll() {
    const id = this.#registration.id;
    const held = [...this.#running.values()].filter((h) => !h.done && !h.stopped && h.workerId === id);
    try {
      await this.#beat(held, id);
    } catch (e) {
      if (e instanceof PunctualProblem && e.status === 404) {
        await this.#reregister(id);
      } else {
        this.#logger.warn?.(`punctual worker ${id}: heartbeat failed: ${e.message}`);
      }
    }
  }

  /** Sends one heartbeat naming `held`; aborts the signals of those the answer says to stop. */
  #beat(held, workerId) {
    const attempts = held.map((h) => h.report());
    const sent = request(this.#conn, "POST", `/workers/${encode(workerId)}/heartbeat`, { body: { attempts } });
    for (const h of held) h.inFlight = sent;
    return sent.then(
      (answer) => {
        for (const s of answer.stop ?? []) {
          const h = this.#running.get(`${s.jobId}/${s.attempt}`);
          if (h && h.workerId === workerId) {
            h.stopped = true;
            h.abort(abortError("Punctual stopped this attempt: cancelled, timed out or no longer held"));
          }
        }
      },
      (e) => {
        for (let i = 0; i < held.length; i++) held[i].unreport(attempts[i]); // sent again next time
        throw e;
      },
    );
  }
}

/** An attempt this worker holds: what its handler reported, its signal, its fence. */
class Held {
  constructor(claimed, workerId, stats) {
    this.claimed = claimed;
    this.jobId = claimed.jobId;
    this.attempt = claimed.attempt;
    this.workerId = workerId;
    this.stats = stats;
    this.controller = new AbortController();
    this.lines = [];
    this.followUps = [];
    this.progress = null;
    this.progressSent = true;
    this.done = false;
    this.stopped = false;
    this.inFlight = null;
    this.finished = null;
    this.timer = null;
    if (claimed.deadline) {
      const ms = Date.parse(claimed.deadline) - Date.now();
      // Beyond setTimeout's range (about 24.8 days) the heartbeat's stop list still ends it.
      if (ms < 2 ** 31 - 1) this.timer = setTimeout(() => {
        this.stopped = true; // the API times it out and refuses its result
        this.abort(new DOMException(`attempt timed out at ${claimed.deadline}`, "TimeoutError"));
      }, Math.max(0, ms));
    }
  }

  abort(reason) {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  clearTimer() {
    clearTimeout(this.timer);
  }

  hasNews() {
    return this.lines.length > 0 || !this.progressSent;
  }

  /** Its entry of the next heartbeat: the progress if it changed, up to 100 new lines. */
  report() {
    const entry = { jobId: this.jobId, attempt: this.attempt };
    if (!this.progressSent) {
      entry.progress = this.progress;
      this.progressSent = true;
    }
    if (this.lines.length > 0) entry.logs = this.lines.splice(0, MAX_LINES_PER_BEAT);
    return entry;
  }

  /** A heartbeat carrying `entry` failed: keep what it carried for the next one. */
  unreport(entry) {
    if (entry.progress && this.progressSent) this.progressSent = false;
    if (entry.logs) this.lines.unshift(...entry.logs);
  }

  context() {
    const c = this.claimed;
    const self = this;
    return Object.freeze({
      jobId: c.jobId,
      attempt: c.attempt,
      maxAttempts: c.maxAttempts,
      type: c.type,
      namespace: c.namespace,
      payload: c.payload,
      idempotencyKey: c.idempotencyKey,
      tags: c.tags ?? [],
      deadline: c.deadline ? new Date(c.deadline) : null,
      traceparent: c.traceparent ?? null,
      workerId: this.workerId,
      signal: this.controller.signal,
      progress(doneOrPercent, total) {
        if (total === undefined) {
          if (typeof doneOrPercent !== "number" || !(doneOrPercent >= 0 && doneOrPercent <= 100)) {
            throw new RangeError(`progress(percent): percent must be from 0 to 100, not ${doneOrPercent}`);
          }
          self.progress = { percent: doneOrPercent };
        } else {
          if (!Number.isInteger(doneOrPercent) || !Number.isInteger(total) || total <= 0 || doneOrPercent < 0 || doneOrPercent > total) {
            throw new RangeError(`progress(done, total): whole numbers with 0 <= done <= total and total > 0, not ${doneOrPercent}, ${total}`);
          }
          self.progress = { done: doneOrPercent, total };
        }
        self.progressSent = false;
      },
      log(line) {
        if (self.lines.length >= MAX_BUFFERED_LINES) {
          self.stats.droppedLogLines++;
          return;
        }
        self.lines.push(String(line).slice(0, MAX_LINE_CHARS));
      },
      followUp(job) {
        if (job === null || typeof job !== "object" || typeof job.type !== "string") {
          throw new TypeError("followUp(job): job must be an object with a type");
        }
        if (self.followUps.length >= MAX_FOLLOW_UPS) {
          throw new RangeError(`followUp(job): at most ${MAX_FOLLOW_UPS} follow-ups an attempt`);
        }
        self.followUps.push({ ...job });
      },
    });
  }
}

class NonRetryable extends Error {
  name = "NonRetryableError";
}

/** A handler's error as a failed completion: retryable unless it says otherwise. */
function failure(e) {
  const name = e?.name ?? "Error";
  const message = e instanceof Error ? e.message : String(e);
  const outcome = { status: "failed", error: `${name}: ${message}`.slice(0, MAX_ERROR_CHARS), retryable: true };
  if (name === "NonRetryableError") {
    outcome.retryable = false;
  } else if (name === "RetryAfterError" && Number.isInteger(e.retryAfterMs)) {
    outcome.retryAfterMs = Math.min(Math.max(0, e.retryAfterMs), MAX_RETRY_AFTER_MS);
  }
  return outcome;
}

function abortError(message) {
  return new DOMException(message, "AbortError");
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
