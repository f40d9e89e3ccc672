package io.punctual.worker.handler.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;

/**
 * {@code fail}: payload {@code {"times": N}}; attempts 1..N fail with a retryable error, later
 * attempts succeed. Without {@code times} every attempt fails.
 */
public final class FailHandler implements JobHandler {
  @Override
  public String type() {
    return "fail";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    JsonNode times = ctx.payload() == null ? null : ctx.payload().get("times");
    long failures = times != null && times.canConvertToLong() ? times.asLong() : Long.MAX_VALUE;
    if (ctx.attempt() <= failures) {
      String plan = times == null ? "every attempt" : "attempts 1.." + failures;
      throw new IllegalStateException(
          "planned failure of attempt " + ctx.attempt() + " (fails " + plan + ")");
    }
    return JobResult.success();
  }
}
