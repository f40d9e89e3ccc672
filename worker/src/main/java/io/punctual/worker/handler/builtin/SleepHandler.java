package io.punctual.worker.handler.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;

/** {@code sleep}: payload {@code {"ms": N}}; sleeps N milliseconds, interruptibly. */
public final class SleepHandler implements JobHandler {
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
    Thread.sleep(ms.asLong());
    return JobResult.success();
  }
}
