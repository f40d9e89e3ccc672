package io.punctual.api.remote;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.handler.RetryAfterException;
import java.time.Duration;

/**
 * The handler of one job type a remote worker declared: hands each attempt to the remote worker
 * (its next claim takes it) and waits for its completion, which it returns or throws as a Java
 * handler would, so that the worker records it the same way: retries, backoff, fencing, limits.
 */
final class RemoteHandler implements JobHandler {
  private final String type;
  private final RemoteSession session;

  RemoteHandler(String type, RemoteSession session) {
    this.type = type;
    this.session = session;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    RemoteAttempt attempt = session.offer(ctx);
    try {
      return switch (attempt.await()) {
        case RemoteResult.Succeeded s -> {
          // Validated at the completion (no link between follow-ups, no repeated key): stored
          // with the success, or not at all, as a Java handler's.
          s.followUps().forEach(ctx::spawn);
          yield JobResult.success(s.result());
        }
        case RemoteResult.Failed f when !f.retryable() ->
            throw new NonRetryableException(f.error());
        // No delay asked: zero, so that the job's backoff applies, as after any failure.
        case RemoteResult.Failed f ->
            throw new RetryAfterException(
                f.retryAfter() == null ? Duration.ZERO : f.retryAfter(), f.error());
      };
    } finally {
      session.release(ctx);
    }
  }
}
