package io.punctual.spring;

import io.punctual.app.PunctualJobs;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** Spring Boot 3 Actuator's {@code punctual} health ({@link PunctualHealthCheck}). */
public final class PunctualActuatorHealthIndicator implements HealthIndicator {
  private final PunctualHealthCheck check;

  /** {@code worker}: the context's embedded worker, or null when it runs none. */
  public PunctualActuatorHealthIndicator(PunctualJobs jobs, EmbeddedWorkerLifecycle worker) {
    this.check = new PunctualHealthCheck(jobs, worker);
  }

  @Override
  public Health health() {
    PunctualHealthCheck.Result result = check.check();
    return (result.up() ? Health.up() : Health.down()).withDetails(result.details()).build();
  }
}
