export { Client, FINAL_STATUSES } from "./client.js";
export { Worker } from "./worker.js";
export { PunctualProblem, JobWaitTimeoutError, NonRetryableError, RetryAfterError } from "./errors.js";
