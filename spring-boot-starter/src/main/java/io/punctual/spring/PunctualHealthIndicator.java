package io.punctual.spring;

import io.punctual.app.PunctualJobs;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** Spring Boot 4 Actuator's {@code punctual} health ({@link PunctualHealthCheck}). */
public final class PunctualHealthIndicator implements HealthIndicator {
  private final PunctualHealthCheck check;

  /** {@code worker}: the context's embedded worker, or null when it runs none. */
  public PunctualHealthIndicator(PunctualJobs jobs, EmbeddedWorkerLifecycle worker) {
    this.check = new PunctualHealthCheck(jobs, worker);
  }

  @Override
  public Health health() {
    PunctualHealthCheck.Result result = check.check();
    return (result.up() ? Health.up() : Health.down()).withDetails(result.details()).build();
  }
}
