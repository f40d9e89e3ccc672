package io.punctual.worker.heartbeat;

import io.punctual.model.Job;
import io.punctual.queue.CancelNotice;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.JobMdc;
import io.punctual.worker.run.RunningAttempt;
import io.punctual.worker.run.RunningAttempts;
import io.punctual.worker.run.StopReason;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Interrupts a running attempt as soon as its cancel is announced ({@link CancelNotice}, published
 * by the API once the cancel committed). Notices for jobs this worker does not run are ignored:
 * every worker hears every cancel. The heartbeat stays the fallback for a notice missed while the
 * subscription was down.
 */
public final class CancelListener {
  private static final Logger log = LoggerFactory.getLogger(CancelListener.class);

  private final RunningAttempts running;
  private final Clock clock;
  private final WorkerSettings settings;
  private final WorkerMetrics metrics;

  public CancelListener(
      RunningAttempts running, Clock clock, WorkerSettings settings, WorkerMetrics metrics) {
    this.running = running;
    this.clock = clock;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** Stops the attempt {@code notice} names if it runs here; true if it did. */
  public boolean onNotice(CancelNotice notice) {
    RunningAttempt a = running.of(notice.jobId()).orElse(null);
    if (a == null || !notice.covers(a.job().attempt()) || !a.stop(StopReason.CANCELLED)) {
      return false;
    }
    Duration latency = Duration.between(notice.cancelledAt(), clock.instant());
    // From the cancel's commit (the API's clock) to now (this worker's).
    metrics.jobs.interruptedAfterCancel(latency);
    Job job = a.job();
    try (JobMdc mdc = JobMdc.of(job, settings.workerId)) {
      log.info(
          "attempt cancelled, interrupting job={} attempt={} worker={}",
          job.id(),
          job.attempt(),
          settings.workerId);
    }
    return true;
  }
}
