package io.punctual.worker.handler.builtin;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;

/** {@code noop}: succeeds at once. Useful for load tests and smoke checks. */
public final class NoopHandler implements JobHandler {
  @Override
  public String type() {
    return "noop";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.success();
  }
}
