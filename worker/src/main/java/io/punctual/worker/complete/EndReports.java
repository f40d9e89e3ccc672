package io.punctual.worker.complete;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.JobMdc;
import io.punctual.worker.run.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ends of a written batch reported: the worker's meters, the labelled counts by outcome, and a
 * log line for each end that is not a success.
 */
final class EndReports {
  // Logged under the batcher's name, as before these reports had a class of their own.
  private static final Logger log = LoggerFactory.getLogger(CompletionBatcher.class);

  private final WorkerMetrics metrics;
  private final String workerId;

  EndReports(WorkerMetrics metrics, String workerId) {
    this.metrics = metrics;
    this.workerId = workerId;
  }

  /** Each attempt's end reported: refused ({@code refused}: by job id, why), written or not. */
  void all(List<FinishedAttempt> batch, Set<UUID> accepted, Map<UUID, String> refused) {
    for (FinishedAttempt f : batch) {
      String why = refused.get(f.job().id());
      if (why != null) {
        followUpsRefused(f, why);
      } else {
        report(f, accepted.contains(f.job().id()));
      }
    }
  }

  /** A success recorded as a failure because the store refused the follow-ups it spawned. */
  private void followUpsRefused(FinishedAttempt f, String error) {
    metrics.failed.mark();
    ended(f, "failed");
    Completion c = f.completion();
    try (JobMdc mdc = JobMdc.of(f.job(), workerId)) {
      log.warn(
          "attempt failed: follow-ups refused job={} attempt={} worker={} next=FAILED error={}",
          c.jobId(),
          c.attempt(),
          workerId,
          error);
    }
  }

  /** One attempt's end reported: counted, and logged unless it succeeded. */
  private void report(FinishedAttempt f, boolean accepted) {
    Completion c = f.completion();
    if (!accepted) {
      // The job was no longer RUNNING with this attempt: rescued and run again, or cancelled.
      metrics.fenceRefused.mark();
    }
    if (accepted && c.executionStatus() == ExecutionStatus.HANDED_BACK) {
      metrics.handoffs.mark();
      ended(f, "handed_back");
      try (JobMdc mdc = JobMdc.of(f.job(), workerId)) {
        log.info(
            "attempt handed back job={} attempt={} worker={} error={}",
            c.jobId(),
            c.attempt(),
            workerId,
            c.error());
      }
      return;
    }
    if (f.outcome() instanceof Outcome.Cancelled) {
      // A handler stopped because its attempt was no longer current: its completion is refused.
      metrics.cancelled.mark();
      ended(f, "cancelled");
      try (JobMdc mdc = JobMdc.of(f.job(), workerId)) {
        log.info(
            "attempt cancelled job={} attempt={} worker={} refusedByFence={}",
            c.jobId(),
            c.attempt(),
            workerId,
            !accepted);
      }
      return;
    }
    if (!accepted) {
      metrics.staleRefused.mark();
      ended(f, "refused");
      try (JobMdc mdc = JobMdc.of(f.job(), workerId)) {
        log.warn(
            "stale attempt refused job={} attempt={} worker={} outcome={}",
            c.jobId(),
            c.attempt(),
            workerId,
            c.executionStatus());
      }
      return;
    }
    if (c.executionStatus() == ExecutionStatus.TIMED_OUT) {
      metrics.timedOut.mark();
      ended(f, "timed_out");
    } else {
      switch (c.nextState()) {
        case PENDING -> ended(f, "retried");
        case FAILED -> ended(f, "failed");
        default -> {}
      }
    }
    switch (c.nextState()) {
      case SUCCEEDED -> {
        metrics.succeeded.mark();
        ended(f, "succeeded");
      }
      case PENDING -> metrics.retried.mark();
      case FAILED -> metrics.failed.mark();
      default -> {}
    }
    if (c.nextState() != JobState.SUCCEEDED) {
      try (JobMdc mdc = JobMdc.of(f.job(), workerId)) {
        log.info(
            "attempt {} job={} attempt={} worker={} next={} runAt={} error={}",
            c.executionStatus(),
            c.jobId(),
            c.attempt(),
            workerId,
            c.nextState(),
            c.nextRunAt(),
            c.error());
      }
    }
  }

  /** Counts an attempt's end in the labelled metrics (outcome: succeeded, failed, retried...). */
  private void ended(FinishedAttempt f, String outcome) {
    metrics.jobs.ended(f.job().namespace(), f.job().type(), outcome);
  }
}
