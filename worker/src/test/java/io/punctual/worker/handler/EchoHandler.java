package io.punctual.worker.handler;

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
