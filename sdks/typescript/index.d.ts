// Types of @punctual/sdk. Each interface named like a schema of the API's OpenAPI document
// (api-server/src/main/resources/io/punctual/api/openapi/openapi.json) has that schema's fields:
// test/contract.test.mjs checks every one against it (see SCHEMAS there).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JobStatus = "BLOCKED" | "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED" | "SKIPPED" | "DEAD";
export type Priority = "critical" | "high" | "normal" | "low";
export type RunCondition = "on_success" | "on_failure" | "always";

// ---- Requests (schemas with x-punctual-fields: optional here = not required there) ----

export interface ExponentialBackoff {
  strategy: "exponential";
  initialDelay?: string;
  factor?: number;
  maxDelay?: string;
  jitter?: number;
}
export interface FixedBackoff {
  strategy: "fixed";
  delay: string;
}
export interface IntervalsBackoff {
  strategy: "intervals";
  intervals: string[];
}
export type Backoff = ExponentialBackoff | FixedBackoff | IntervalsBackoff;

export interface Callback {
  url: string;
  headers?: Record<string, string>;
}

export interface Dependency {
  id: string;
  required?: boolean;
}

/** A job to submit. Durations are ISO-8601 ("PT30S"), times ISO-8601 instants. */
export interface JobRequest {
  type: string;
  payload?: JsonValue;
  runAt?: string;
  delay?: string;
  priority?: Priority;
  maxAttempts?: number;
  backoff?: Backoff;
  timeout?: string;
  idempotencyKey?: string;
  tags?: string[];
  callback?: Callback;
  parentId?: string;
  runCondition?: RunCondition;
  dependsOn?: Array<Dependency | string>;
  concurrencyKey?: string;
}

export interface StepDependency {
  ref?: string;
  id?: string;
  required?: boolean;
}

export interface WorkflowStepRequest {
  ref: string;
  type: string;
  payload?: JsonValue;
  runAt?: string;
  delay?: string;
  priority?: Priority;
  maxAttempts?: number;
  backoff?: Backoff;
  timeout?: string;
  idempotencyKey?: string;
  tags?: string[];
  callback?: Callback;
  parentId?: string;
  parent?: string;
  runCondition?: RunCondition;
  dependsOn?: StepDependency[];
  concurrencyKey?: string;
}

export interface WorkflowRequest {
  jobs: WorkflowStepRequest[];
  idempotencyKey?: string;
}

// ---- Answers (schemas with x-java: "| null" here = nullable there) ----

export interface JobDependency {
  id: string;
  required: boolean;
  runCondition: RunCondition;
}

export interface JobProgress {
  attempt: number;
  percent: number;
  done: number | null;
  total: number | null;
  updatedAt: string;
}

export interface Job {
  id: string;
  namespace: string;
  type: string;
  status: JobStatus;
  priority: Priority;
  payload: JsonValue;
  runAt: string;
  attempts: number;
  maxAttempts: number;
  backoff: Backoff;
  timeout: string | null;
  idempotencyKey: string | null;
  tags: string[] | null;
  callback: Callback | null;
  result: JsonValue;
  lastError: string | null;
  workerId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  parentId: string | null;
  runCondition: RunCondition | null;
  workflowId: string | null;
  scheduleId: string | null;
  occurrenceAt: string | null;
  traceparent: string | null;
  /** Where one job is returned; left out of list pages. */
  dependsOn?: JobDependency[];
  /** Once an attempt reported progress. */
  progress?: JobProgress;
}

export interface Execution {
  attempt: number;
  status: string;
  workerId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  error: string | null;
}

export interface LogLine {
  seq: number;
  at: string;
  line: string;
}

export interface LogPage {
  jobId: string;
  /** Null for a job that never ran. */
  attempt: number | null;
  lines: LogLine[];
  /** The `after` of the next page. */
  next: number;
}

export interface WorkflowStep {
  ref: string;
  id: string;
  type: string;
  status: JobStatus;
  parentId: string | null;
  runCondition: string | null;
  dependsOn: JobDependency[];
  attempts: number;
  lastError: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface Workflow {
  id: string;
  namespace: string;
  status: string;
  createdAt: string;
  cancelledAt: string | null;
  jobs: WorkflowStep[];
}

export interface FieldError {
  field: string;
  message: string;
}

/** The body of every refusal: an RFC 9457 problem. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  field?: string;
  errors?: FieldError[];
}

// ---- The worker protocol ----

export interface WorkerRegistration {
  types: string[];
  concurrency?: number;
}

export interface RegisteredWorker {
  id: string;
  namespace: string;
  types: string[];
  concurrency: number;
  heartbeatIntervalMs: number;
  leaseTtlMs: number;
  maxWaitMs: number;
}

export interface ClaimRequest {
  max?: number;
  waitMs?: number;
}

export interface ClaimedAttempt {
  jobId: string;
  namespace: string;
  type: string;
  attempt: number;
  maxAttempts: number;
  payload: JsonValue;
  idempotencyKey: string;
  tags: string[];
  deadline: string | null;
  traceparent: string | null;
}

export interface ClaimedAttempts {
  attempts: ClaimedAttempt[];
}

export interface ProgressReport {
  percent?: number;
  done?: number;
  total?: number;
}

export interface HeartbeatAttempt {
  jobId: string;
  attempt: number;
  progress?: ProgressReport;
  logs?: string[];
}

export interface HeartbeatRequest {
  attempts?: HeartbeatAttempt[];
}

export interface StopAttempt {
  jobId: string;
  attempt: number;
}

export interface HeartbeatAnswer {
  stop: StopAttempt[];
}

export interface CompletionRequest {
  jobId: string;
  attempt: number;
  status: "succeeded" | "failed";
  result?: JsonValue;
  followUps?: FollowUpRequest[];
  error?: string;
  retryable?: boolean;
  retryAfterMs?: number;
}

/** A job stored with the attempt's success, as the job's child, in its namespace. */
export interface FollowUpRequest {
  type: string;
  payload?: JsonValue;
  runAt?: string;
  delay?: string;
  /** Default: the priority of the job that asked for it. */
  priority?: Priority;
  maxAttempts?: number;
  backoff?: Backoff;
  timeout?: string;
  /** Unique among the attempt's follow-ups. */
  idempotencyKey?: string;
  tags?: string[];
}

export interface CompletedAttempt {
  jobId: string;
  attempt: number;
  recorded: boolean;
}

// ---- Errors ----

/** A problem the API answered (status >= 400), or a non-problem error answer (type "about:blank"). */
export class PunctualProblem extends Error {
  readonly name: "PunctualProblem";
  readonly status: number;
  /** https://punctual.dev/problems/<kind> */
  readonly type: string;
  readonly title: string;
  readonly detail: string | null;
  readonly instance: string | null;
  /** The first field or parameter at fault (priority, jobs[2].runAt, Punctual-Namespace). */
  readonly field: string | null;
  /** Every invalid field of a validation problem. */
  readonly errors: FieldError[];
  /** The Retry-After header of a 429 or 503, in seconds. */
  readonly retryAfterSeconds: number | null;
  readonly method: string | null;
  readonly url: string | null;
  /** The part of `type` after https://punctual.dev/problems/ ("invalid-request", "job-final"). */
  readonly kind: string;
  constructor(problem: Partial<ProblemDetails> & { status: number }, request?: { method?: string; url?: string; retryAfter?: number });
}

export class JobWaitTimeoutError extends Error {
  readonly name: "JobWaitTimeoutError";
  /** The job as it was last read. */
  readonly job: Job;
  readonly waitedMs: number;
}

/** Throw from a handler: the attempt fails and the job is not retried. */
export class NonRetryableError extends Error {
  readonly name: "NonRetryableError";
  constructor(message?: string, options?: ErrorOptions);
}

/** Throw from a handler: the attempt fails; its retry waits at least `retryAfterMs` (at most a day). */
export class RetryAfterError extends Error {
  readonly name: "RetryAfterError";
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number, message?: string, options?: ErrorOptions);
}

// ---- Client ----

export interface ConnectionOptions {
  /** The API's root, e.g. http://localhost:8080 (a trailing /api/v1 is accepted). */
  baseUrl: string;
  /** Sent as Authorization: Bearer <apiKey>. */
  apiKey?: string;
  /** Sent as Punctual-Namespace; without it the key's default namespace. */
  namespace?: string;
  /** Another fetch (tests, proxies); default: Node's own. */
  fetch?: typeof fetch;
}

export const FINAL_STATUSES: readonly JobStatus[];

export class Client {
  constructor(options: ConnectionOptions);
  readonly namespace: string | undefined;
  /** 201 with the stored job (200 with the first one for an idempotent repeat). */
  submit(job: JobRequest, options?: { traceparent?: string }): Promise<Job>;
  /** All or none; answers the jobs in the order given. */
  submitBatch(jobs: JobRequest[], options?: { traceparent?: string }): Promise<Job[]>;
  submitWorkflow(workflow: WorkflowRequest): Promise<Workflow>;
  get(id: string): Promise<Job>;
  getWorkflow(id: string): Promise<Workflow>;
  /** Answers the job CANCELLED; a final job is a 409 job-final problem. */
  cancel(id: string): Promise<Job>;
  cancelWorkflow(id: string): Promise<Workflow>;
  executions(id: string): Promise<Execution[]>;
  logs(id: string, options?: { attempt?: number; after?: number; limit?: number }): Promise<LogPage>;
  /** Reads the job until it is final; a JobWaitTimeoutError after timeoutMs (default 60 s). */
  awaitFinal(id: string, options?: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal }): Promise<Job>;
}

// ---- Worker ----

export interface JobContext<P = JsonValue> {
  readonly jobId: string;
  /** The attempt number (1, 2, ...): the fence every report of it names. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly type: string;
  readonly namespace: string;
  readonly payload: P;
  /** The job's idempotency key, or punctual:<jobId>: stable across attempts. */
  readonly idempotencyKey: string;
  readonly tags: string[];
  /** When the job's timeout ends this attempt; null without a timeout. */
  readonly deadline: Date | null;
  /** The W3C trace context the job was submitted with. */
  readonly traceparent: string | null;
  /** The registration this attempt was claimed under. */
  readonly workerId: string;
  /**
   * Aborted when Punctual says to stop (a cancel, the timeout, the attempt no longer held) or the
   * worker is stopping past its timeout. Its reason is a DOMException (AbortError, TimeoutError).
   */
  readonly signal: AbortSignal;
  /** Reports progress, sent with the next heartbeat: a percentage, or done of total. */
  progress(percent: number): void;
  progress(done: number, total: number): void;
  /** Adds a log line (cut at 4,096 characters), sent with the next heartbeat. */
  log(line: string): void;
  /**
   * Asks for a follow-up job, stored with this attempt's success (and only then) as the job's
   * child in its namespace; dropped when the attempt fails. At most 1,000 an attempt.
   */
  followUp(job: FollowUpRequest): void;
}

/** What a handler returns becomes the job's result (undefined: none). */
export type Handler<P = any> = (ctx: JobContext<P>) => Promise<JsonValue | undefined | void> | JsonValue | undefined | void;

export interface Logger {
  warn?(message: string): void;
  error?(message: string): void;
}

export interface WorkerOptions extends ConnectionOptions {
  /** Job type -> handler. The worker declares these types. */
  handlers: Record<string, Handler>;
  /** Attempts run at once, 1 to 1000 (default 1). */
  concurrency?: number;
  /** How long a claim waits for work (default 20,000 ms, at most the API's maxWaitMs). */
  waitMs?: number;
  /** Where refusals and failures of the protocol are told (default: console; null: nowhere). */
  logger?: Logger | null;
}

export interface WorkerStats {
  claimed: number;
  succeeded: number;
  failed: number;
  /** Completions the API refused (404: taken for dead; 409: the attempt was no longer held). */
  refused: number;
  /** Attempts Punctual stopped (cancelled, timed out, lost): not completed. */
  stopped: number;
  reregistered: number;
  droppedLogLines: number;
}

export class Worker {
  constructor(options: WorkerOptions);
  /** The registration's id; null before start(). Changes when it registers again. */
  readonly id: string | null;
  readonly registration: RegisteredWorker | null;
  /** Attempts running now. */
  readonly running: number;
  readonly stats: WorkerStats;
  /** Registers, then claims and runs attempts until stop(). */
  start(): Promise<RegisteredWorker>;
  /**
   * Claims no more, waits for running handlers (aborting their signals after timeoutMs, if given),
   * then deletes its registration.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}
