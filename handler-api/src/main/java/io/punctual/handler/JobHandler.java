package io.punctual.handler;

/**
 * Runs jobs of one type. Implementations must be thread-safe: many jobs run at once, each on its
 * own virtual thread. Register them with the worker's {@code JobHandlers.register}, or list them in
 * {@code META-INF/services/io.punctual.handler.JobHandler} to be found by {@link
 * java.util.ServiceLoader}.
 *
 * <p>Returning a {@link JobResult} ({@link JobResult#success()}, or {@link
 * JobResult#success(com.fasterxml.jackson.databind.JsonNode)} to store a result on the job)
 * succeeds the attempt. Throwing {@link NonRetryableException} fails the job at once; {@link
 * RetryAfterException} asks for the next attempt no sooner than a delay; anything else is a
 * retryable failure. A handler should stop promptly when its thread is interrupted or {@link
 * JobContext#isCancelled()} turns true (the job was cancelled or overran its timeout).
 */
public interface JobHandler {
  /** The job type this handler runs, e.g. {@code "http"}. */
  String type();

  /** Runs one attempt of a job. */
  JobResult handle(JobContext ctx) throws Exception;
}
