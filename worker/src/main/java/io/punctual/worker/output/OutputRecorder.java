package io.punctual.worker.output;

import com.codahale.metrics.Meter;
import io.punctual.common.loop.Loops;
import io.punctual.handler.AttemptOutput;
import io.punctual.model.Job;
import io.punctual.model.Progress;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.LogReport;
import io.punctual.store.AttemptOutputs.ProgressReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's {@link AttemptOutput}: keeps what handlers report in memory and writes it every
 * {@code worker.outputFlushInterval}, in one transaction of at most two statements, on a thread of
 * its own: a handler's {@code progress} or {@code log} call never waits for PostgreSQL, and the
 * claim and finish paths never see it. Only the latest progress of an attempt is kept between
 * flushes. At most {@link #MAX_BUFFERED} lines wait at once; more are dropped and counted ({@code
 * punctual.worker.logLinesDropped}), as is a batch whose write failed: progress and logs are for
 * watching a job, and never hold up or fail the job itself.
 */
public final class OutputRecorder implements AttemptOutput, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutputRecorder.class);

  /** The most log lines waiting for a flush at once. */
  public static final int MAX_BUFFERED = 50_000;

  /** The most lines one statement writes. */
  private static final int LINES_PER_FLUSH = 5_000;

  private record AttemptKey(java.util.UUID jobId, int attempt) {}

  private final AttemptOutputs store;
  private final Duration interval;
  private final int linesPerAttempt;
  private final Meter dropped;
  private final Map<AttemptKey, ProgressReport> progress = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<LogReport> lines = new ConcurrentLinkedQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  private final ScheduledExecutorService flushing =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("punctual-output").unstarted(r));

  /**
   * @param interval how often what was reported is written ({@code worker.outputFlushInterval})
   * @param linesPerAttempt how many lines an attempt keeps ({@code worker.logLinesPerAttempt})
   * @param dropped counts lines dropped (buffer full, or a failed write)
   */
  public OutputRecorder(
      AttemptOutputs store, Duration interval, int linesPerAttempt, Meter dropped) {
    this.store = store;
    this.interval = interval;
    this.linesPerAttempt = linesPerAttempt;
    this.dropped = dropped;
  }

  @Override
  public void progress(Job job, Progress reported, Instant at) {
    progress.put(
        new AttemptKey(job.id(), job.attempt()),
        new ProgressReport(job.id(), job.attempt(), job.namespace(), reported, at));
  }

  @Override
  public void log(Job job, int seq, String line, Instant at) {
    if (buffered.incrementAndGet() > MAX_BUFFERED) {
      buffered.decrementAndGet();
      dropped.mark();
      return;
    }
    lines.add(new LogReport(job.id(), job.attempt(), job.namespace(), seq, line, at));
  }

  @Override
  public int logLinesPerAttempt() {
    return linesPerAttempt;
  }

  /** Flushes every {@code interval} from now on. */
  public void start() {
    long nanos = interval.toNanos();
    ScheduledFuture<?> unused =
        flushing.scheduleWithFixedDelay(this::flushQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** Writes what was reported so far; returns how many progress reports and lines it wrote. */
  public int runOnce() {
    int written = 0;
    do {
      List<ProgressReport> latest = takeProgress();
      List<LogReport> batch = takeLines();
      if (latest.isEmpty() && batch.isEmpty()) {
        break;
      }
      try {
        store.write(latest, batch);
      } catch (RuntimeException e) {
        dropped.mark(batch.size());
        throw e;
      }
      written += latest.size() + batch.size();
    } while (buffered.get() > 0);
    return written;
  }

  private void flushQuietly() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      log.warn("job progress and log lines could not be written (dropped): {}", e.toString());
    }
  }

  private List<ProgressReport> takeProgress() {
    if (progress.isEmpty()) {
      return List.of();
    }
    List<ProgressReport> taken = new ArrayList<>();
    for (AttemptKey key : List.copyOf(progress.keySet())) {
      ProgressReport report = progress.remove(key);
      if (report != null) {
        taken.add(report);
      }
    }
    return taken;
  }

  private List<LogReport> takeLines() {
    List<LogReport> taken = new ArrayList<>();
    LogReport line;
    while (taken.size() < LINES_PER_FLUSH && (line = lines.poll()) != null) {
      taken.add(line);
    }
    buffered.addAndGet(-taken.size());
    return taken;
  }

  /** Stops the loop after a last flush (call once the handlers have ended). */
  @Override
  public void close() {
    Loops.stopNow(flushing);
    flushQuietly();
  }
}
