package io.punctual.common.store;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Runs the versioned SQL migrations in {@code db/migration} (Flyway). Run by {@code punctual
 * migrate}, on {@code punctual dev} start, and by every integration test's database.
 */
public final class Migrations {
  private Migrations() {}

  public static MigrateResult migrate(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration")
        .table("punctual_schema_history")
        .load()
        .migrate();
  }
}
