package io.punctual.worker;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records each attempt it runs (payload, start time), in order, and succeeds. */
public final class RecordingHandler implements JobHandler {
  /** One recorded attempt. */
  public record Run(JobContext ctx, Instant startedAt) {}

  private final String type;
  private final List<Run> runs = new CopyOnWriteArrayList<>();

  public RecordingHandler(String type) {
    this.type = type;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public JobResult handle(JobContext ctx) {
    runs.add(new Run(ctx, Instant.now()));
    return JobResult.success();
  }

  public List<Run> runs() {
    return runs;
  }
}
