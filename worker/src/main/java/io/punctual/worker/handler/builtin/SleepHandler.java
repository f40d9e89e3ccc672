package io.punctual.worker.handler.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;

/**
 * {@code sleep}: payload {@code {"ms": N}}; sleeps N milliseconds, interruptibly, N at most {@link
 * #MAX_MS} (an hour): a submitter cannot park a worker slot for longer with it.
 */
public final class SleepHandler implements JobHandler {
  /** The longest sleep: an hour. */
  public static final long MAX_MS = 3_600_000;

  @Override
  public String type() {
    return "sleep";
  }

  @Override
  public JobResult handle(JobContext ctx) throws InterruptedException, NonRetryableException {
    JsonNode ms = ctx.payload() == null ? null : ctx.payload().get("ms");
    if (ms == null || !ms.canConvertToLong() || ms.asLong() < 0) {
      throw new NonRetryableException("sleep needs payload.ms, a number of milliseconds >= 0");
    }
    if (ms.asLong() > MAX_MS) {
      throw new NonRetryableException(
          "sleep's payload.ms must be at most " + MAX_MS + " (an hour), was " + ms.asLong());
    }
    Thread.sleep(ms.asLong());
    return JobResult.success();
  }
}
