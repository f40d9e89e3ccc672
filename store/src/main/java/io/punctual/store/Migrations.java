package io.punctual.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Runs the SQL migrations in {@code db/migration} (Flyway): the versioned ones, then the repeatable
 * ones ({@code R__*.sql}, such as the partition functions, applied again whenever they change). Run
 * by {@code punctual migrate}, on {@code punctual dev} start, and by every integration test's
 * database.
 */
public final class Migrations {
  private Migrations() {}

  static final String HISTORY = "punctual_schema_history";

  /**
   * A versioned migration edited after it was released: the checksum an older release recorded when
   * it applied it, and the checksum it has now.
   */
  record Edited(String version, int recorded, int now) {}

  /**
   * V1, V2, V5 and V8 each defined a partition function (V5 and V8 redefining V2's); the functions
   * moved to {@code R__partition_functions.sql}, one definition each, and these versions kept the
   * rest. A database migrated by an older release has their former checksums on record, which
   * Flyway's validation would refuse: {@link #migrate} replaces exactly those, and nothing else.
   */
  static final List<Edited> EDITED =
      List.of(
          new Edited("1", 2127178594, -932731305),
          new Edited("2", 630340465, 957024592),
          new Edited("5", 1965613214, 249810867),
          new Edited("8", 603259076, -193237840));

  public static MigrateResult migrate(DataSource dataSource) {
    realignEdited(dataSource);
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration")
        .table(HISTORY)
        // A database that already holds an application's own tables (one that submits jobs in its
        // transactions shares it) but no Punctual history: start that history before V1, so every
        // migration runs. Without it Flyway refuses any non-empty schema.
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  /** Records the current checksums of the {@link #EDITED} migrations where the former ones are. */
  static void realignEdited(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL");
          PreparedStatement realign =
              c.prepareStatement(
                  "UPDATE "
                      + HISTORY
                      + " SET checksum = ? WHERE version = ? AND checksum = ? AND type = 'SQL'")) {
        exists.setString(1, HISTORY);
        try (ResultSet rs = exists.executeQuery()) {
          if (!rs.next() || !rs.getBoolean(1)) {
            return;
          }
        }
        for (Edited e : EDITED) {
          realign.setInt(1, e.now());
          realign.setString(2, e.version());
          realign.setInt(3, e.recorded());
          realign.executeUpdate();
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the migration history", e);
    }
  }
}
