package io.punctual.worker.handler.builtin;

import io.punctual.worker.handler.JobContext;
import io.punctual.worker.handler.JobHandler;
import io.punctual.worker.handler.JobResult;

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
