package io.punctual.worker.handler.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;

/**
 * {@code sleep}: payload {@code {"ms": N}}; sleeps N milliseconds, interruptibly, N at most {@link
 * #MAX_MS} (an hour): a submitter cannot park a worker slot for longer with it. With {@code
 * "steps": S} (1 to {@link #MAX_STEPS}, default 1) it sleeps in S equal steps and after each one
 * reports its progress (step of S) and logs a line: a job to watch the console's progress bar and
 * log with.
 */
public final class SleepHandler implements JobHandler {
  /** The longest sleep: an hour. */
  public static final long MAX_MS = 3_600_000;

  /** The most steps. */
  public static final int MAX_STEPS = 1000;

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
    JsonNode stepsNode = ctx.payload().get("steps");
    if (stepsNode != null
        && (!stepsNode.canConvertToInt()
            || stepsNode.asInt() < 1
            || stepsNode.asInt() > MAX_STEPS)) {
      throw new NonRetryableException("sleep's payload.steps must be 1 to " + MAX_STEPS);
    }
    int steps = stepsNode == null ? 1 : stepsNode.asInt();
    if (steps == 1) {
      Thread.sleep(ms.asLong());
      return JobResult.success();
    }
    for (int step = 1; step <= steps; step++) {
      Thread.sleep(ms.asLong() * step / steps - ms.asLong() * (step - 1) / steps);
      ctx.progress(step, steps);
      ctx.log("step " + step + " of " + steps + " done");
    }
    return JobResult.success();
  }
}
