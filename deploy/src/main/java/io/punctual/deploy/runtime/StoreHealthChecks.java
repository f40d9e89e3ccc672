package io.punctual.deploy.runtime;

import io.dropwizard.core.setup.Environment;
import io.punctual.api.health.PostgresHealthCheck;
import io.punctual.api.health.RedisHealthCheck;
import io.punctual.queue.Stores;
import java.time.Duration;

/**
 * Readiness of roles without the API ({@code worker}, {@code reaper}): {@code /healthcheck} on the
 * admin port is healthy only while PostgreSQL and Redis answer. (The API registers the same checks
 * itself.)
 */
public final class StoreHealthChecks {
  private StoreHealthChecks() {}

  public static void register(Environment environment, Stores stores, Duration redisTimeout) {
    environment.healthChecks().register("postgres", new PostgresHealthCheck(stores.database()));
    environment
        .healthChecks()
        .register("redis", new RedisHealthCheck(stores.redis(), redisTimeout));
  }
}
