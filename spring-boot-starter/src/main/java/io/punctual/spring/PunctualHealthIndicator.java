package io.punctual.spring;

import io.punctual.app.PunctualHealth;
import io.punctual.app.PunctualJobs;
import io.punctual.app.PunctualWorker;
import java.time.Duration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Actuator's {@code punctual} health: UP when PostgreSQL and Redis answer within two seconds and,
 * where the context runs an embedded worker, its claim loop runs; DOWN with the failed checks named
 * otherwise. Details: {@code postgres}, {@code redis}, {@code claimLoop}.
 */
public final class PunctualHealthIndicator implements HealthIndicator {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final PunctualJobs jobs;
  private final EmbeddedWorkerLifecycle worker;

  /** {@code worker}: the context's embedded worker, or null when it runs none. */
  public PunctualHealthIndicator(PunctualJobs jobs, EmbeddedWorkerLifecycle worker) {
    this.jobs = jobs;
    this.worker = worker;
  }

  @Override
  public Health health() {
    PunctualHealth found = jobs.health(TIMEOUT);
    Boolean claimLoop = null;
    if (worker != null) {
      PunctualWorker running = worker.worker();
      claimLoop = running != null && Boolean.TRUE.equals(running.health(TIMEOUT).claimLoop());
    }
    boolean up = found.up() && (claimLoop == null || claimLoop);
    Health.Builder health = up ? Health.up() : Health.down();
    health.withDetail("postgres", found.postgres()).withDetail("redis", found.redis());
    if (claimLoop != null) {
      health.withDetail("claimLoop", claimLoop);
    }
    found.problems().forEach((check, problem) -> health.withDetail(check + "Error", problem));
    return health.build();
  }
}
