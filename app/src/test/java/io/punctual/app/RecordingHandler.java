package io.punctual.app;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/** A handler the test builds (as an app would): records each run, sleeping {@code sleep} first. */
final class RecordingHandler implements JobHandler {
  record Run(UUID jobId, Instant startedAt, Instant endedAt) {}

  private final String type;
  private final Duration sleep;
  final List<Run> runs = new CopyOnWriteArrayList<>();
  final List<UUID> started = new CopyOnWriteArrayList<>();

  RecordingHandler(String type) {
    this(type, Duration.ZERO);
  }

  RecordingHandler(String type, Duration sleep) {
    this.type = type;
    this.sleep = sleep;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    Instant start = Instant.now();
    started.add(ctx.jobId());
    if (!sleep.isZero()) {
      Thread.sleep(sleep);
    }
    runs.add(new Run(ctx.jobId(), start, Instant.now()));
    return JobResult.success();
  }

  long runsOf(UUID id) {
    return runs.stream().filter(r -> r.jobId().equals(id)).count();
  }
}
