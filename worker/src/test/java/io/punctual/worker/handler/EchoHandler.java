package io.punctual.worker.handler;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;

/** Registered through META-INF/services to prove ServiceLoader discovery. */
public final class EchoHandler implements JobHandler {
  @Override
  public String type() {
    return "echo";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.success(ctx.payload());
  }
}
