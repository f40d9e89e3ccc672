package io.punctual.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * PostgreSQL 18 started by the program itself (zonky's binaries from Maven Central), on a free
 * port. With a data directory it keeps its data across restarts; {@code durable} turns fsync and
 * synchronous_commit on (zonky turns both off by default), as anything that claims durability or
 * reports speed must.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private final EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * Starts a server with the default settings.
   *
   * @param dataDirectory where to keep data; null for a throw-away directory
   * @param durable fsync and synchronous_commit on
   */
  public static EmbeddedPostgresServer start(Path dataDirectory, boolean durable) {
    return start(dataDirectory, durable, Map.of());
  }

  /**
   * Starts a server with further settings.
   *
   * @param extraSettings further server settings ({@code postgresql.conf} names), e.g. {@code
   *     shared_preload_libraries=pg_stat_statements} for a benchmark that reports where time goes
   */
  public static EmbeddedPostgresServer start(
      Path dataDirectory, boolean durable, Map<String, String> extraSettings) {
    return start(dataDirectory, durable, extraSettings, FreePorts.pick());
  }

  /** On a given port (a restart on the port clients already know). */
  public static EmbeddedPostgresServer start(
      Path dataDirectory, boolean durable, Map<String, String> extraSettings, int port) {
    try {
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setPort(port)
              .setPGStartupWait(Duration.ofSeconds(60))
              .setServerConfig("max_connections", "200")
              .setServerConfig("fsync", durable ? "on" : "off")
              .setServerConfig("synchronous_commit", durable ? "on" : "off")
              .setServerConfig("full_page_writes", durable ? "on" : "off");
      extraSettings.forEach(builder::setServerConfig);
      if (dataDirectory != null) {
        builder.setDataDirectory(dataDirectory.toFile()).setCleanDataDirectory(false);
      }
      return new EmbeddedPostgresServer(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL", e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  /** JDBC URL of {@code database} (user postgres, no password). */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /** Creates {@code database} unless it exists. */
  public void createDatabaseIfMissing(String database) {
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
        if (rs.next()) {
          return;
        }
      }
      s.execute("CREATE DATABASE \"" + database + "\"");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not create database " + database, e);
    }
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
