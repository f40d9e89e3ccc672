package io.punctual.store.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/**
 * Runs one of the store's migrations again, as it is shipped, on a database already migrated: how a
 * test shows what a data-fixing migration does to rows an older release left (store's StatsHoursIT
 * and PunctualMsIT, the reaper's PartitionJanitorIT).
 */
public final class MigrationScript {
  private MigrationScript() {}

  /** Executes {@code db/migration/<fileName>} on {@code jdbi}'s database, in one statement call. */
  public static void run(Jdbi jdbi, String fileName) throws SQLException {
    String script;
    try (InputStream in =
        Objects.requireNonNull(
            MigrationScript.class.getResourceAsStream("/db/migration/" + fileName), fileName)) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    jdbi.useHandle(
        h -> {
          try (Statement statement = h.getConnection().createStatement()) {
            statement.execute(script);
          }
        });
  }
}
