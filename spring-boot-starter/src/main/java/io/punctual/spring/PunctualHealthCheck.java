package io.punctual.spring;

import io.punctual.app.PunctualHealth;
import io.punctual.app.PunctualJobs;
import io.punctual.app.PunctualWorker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code punctual} health of a Spring application, whichever Actuator reports it (Spring Boot
 * 4's {@link PunctualHealthIndicator}, Spring Boot 3's {@link PunctualActuatorHealthIndicator}): UP
 * when PostgreSQL and Redis answer within two seconds and, where the context runs an embedded
 * worker, its claim loop runs; DOWN with the failed checks named otherwise. Details: {@code
 * postgres}, {@code redis}, {@code claimLoop}, and {@code <check>Error} for each failure.
 */
final class PunctualHealthCheck {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** Up or down, and the details to show. */
  record Result(boolean up, Map<String, Object> details) {}

  private final PunctualJobs jobs;
  private final EmbeddedWorkerLifecycle worker;

  PunctualHealthCheck(PunctualJobs jobs, EmbeddedWorkerLifecycle worker) {
    this.jobs = jobs;
    this.worker = worker;
  }

  Result check() {
    PunctualHealth found = jobs.health(TIMEOUT);
    Boolean claimLoop = null;
    if (worker != null) {
      PunctualWorker running = worker.worker();
      claimLoop = running != null && Boolean.TRUE.equals(running.health(TIMEOUT).claimLoop());
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("postgres", found.postgres());
    details.put("redis", found.redis());
    if (claimLoop != null) {
      details.put("claimLoop", claimLoop);
    }
    found.problems().forEach((check, problem) -> details.put(check + "Error", problem));
    return new Result(found.up() && (claimLoop == null || claimLoop), details);
  }
}
