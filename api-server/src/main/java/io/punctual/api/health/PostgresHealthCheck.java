package io.punctual.api.health;

import com.codahale.metrics.health.HealthCheck;
import io.punctual.store.Database;

/** Healthy when PostgreSQL answers {@code SELECT 1}. */
public final class PostgresHealthCheck extends HealthCheck {
  private final Database database;

  public PostgresHealthCheck(Database database) {
    this.database = database;
  }

  @Override
  protected Result check() {
    int one = database.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
    return one == 1 ? Result.healthy() : Result.unhealthy("SELECT 1 returned " + one);
  }
}
