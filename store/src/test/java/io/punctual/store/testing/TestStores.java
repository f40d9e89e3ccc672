package io.punctual.store.testing;

import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Real PostgreSQL and Redis for integration tests, started once per JVM. In order of preference:
 *
 * <ol>
 *   <li>servers named by {@code PUNCTUAL_TEST_DATABASE_URL} (a JDBC URL of a user that may create
 *       databases) and {@code PUNCTUAL_TEST_REDIS_URL};
 *   <li>Testcontainers ({@code postgres:18}, {@code redis:7}) where a Docker engine answers;
 *   <li>the embedded binaries from Maven Central (PostgreSQL 18 from zonky, redis-server from
 *       embedded-redis) on free ports.
 * </ol>
 *
 * Each test gets its own database (a copy of a migrated template) and its own Redis key prefix, so
 * tests never see each other's data. Every name carries this JVM's own tag ({@code
 * t_<pid>_<random>}), so runs sharing a server do not collide. A {@link StoreStack} drops its
 * database when it closes; on servers named by the environment, what is left (the template, the
 * databases of other fixtures, this JVM's Redis keys) goes when the JVM ends. Nothing else on a
 * server is touched.
 */
public final class TestStores {
  /** This JVM's tag: the start of every database name and Redis key prefix it creates. */
  private static final String RUN =
      "t_" + ProcessHandle.current().pid() + "_" + UUID.randomUUID().toString().substring(0, 6);

  private static final String TEMPLATE = RUN + "_template";
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static TestStores instance;

  private final String adminUrl;
  private final String user;
  private final String password;
  private final String redisUrl;

  /** The databases this JVM created and has not dropped yet (the template among them). */
  private final Set<String> databases = ConcurrentHashMap.newKeySet();

  private TestStores(String adminUrl, String user, String password, String redisUrl) {
    this.adminUrl = adminUrl;
    this.user = user;
    this.password = password;
    this.redisUrl = redisUrl;
  }

  public static synchronized TestStores get() {
    if (instance == null) {
      instance = start();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::cleanUp, "test-stores-clean-up"));
      instance.createTemplate();
    }
    return instance;
  }

  private static TestStores start() {
    String pgUrl = System.getenv("PUNCTUAL_TEST_DATABASE_URL");
    String redis = System.getenv("PUNCTUAL_TEST_REDIS_URL");
    boolean docker = (pgUrl == null || redis == null) && dockerAvailable();
    String user = "postgres";
    String password = "";
    if (pgUrl == null) {
      if (docker) {
        PostgreSQLContainer pg = new PostgreSQLContainer("postgres:18");
        pg.start();
        pgUrl = pg.getJdbcUrl();
        user = pg.getUsername();
        password = pg.getPassword();
      } else {
        EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, false);
        pgUrl = pg.jdbcUrl("postgres");
      }
    } else {
      user = envOr("PUNCTUAL_TEST_DATABASE_USER", "postgres");
      password = envOr("PUNCTUAL_TEST_DATABASE_PASSWORD", "");
    }
    if (redis == null) {
      if (docker) {
        GenericContainer<?> r = new GenericContainer<>("redis:7").withExposedPorts(6379);
        r.start();
        redis = "redis://" + r.getHost() + ":" + r.getMappedPort(6379);
      } else {
        redis = EmbeddedRedisServer.start(null).url();
      }
    }
    return new TestStores(pgUrl, user, password, redis);
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  private static String envOr(String name, String fallback) {
    String value = System.getenv(name);
    return value == null ? fallback : value;
  }

  private void createTemplate() {
    databases.add(TEMPLATE);
    execute("CREATE DATABASE " + TEMPLATE);
    withoutWaitingForFlush(TEMPLATE);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(urlOf(TEMPLATE));
    ds.setUser(user);
    ds.setPassword(password);
    Migrations.migrate(ds);
  }

  /** A fresh, migrated database of its own. */
  public PostgresSettings newDatabase() {
    String name = RUN + "_" + COUNTER.incrementAndGet();
    databases.add(name);
    execute("CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
    withoutWaitingForFlush(name);
    PostgresSettings settings = new PostgresSettings(urlOf(name), user, password);
    settings.maxPoolSize = 8;
    return settings;
  }

  /**
   * Drops a database {@link #newDatabase} created (closing any connection still open to it); a
   * database this JVM did not create is left alone.
   */
  public void dropDatabase(PostgresSettings database) {
    String url = database.url;
    int slash = url.lastIndexOf('/');
    int query = url.indexOf('?', slash);
    String name = url.substring(slash + 1, query < 0 ? url.length() : query);
    if (databases.remove(name)) {
      execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  /** Whether the server holds a database of that name. */
  public boolean databaseExists(String name) {
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        var s = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      s.setString(1, name);
      try (var rs = s.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list databases", e);
    }
  }

  /** This JVM's tag, the start of every database name and Redis key prefix it makes. */
  public String runTag() {
    return RUN;
  }

  /**
   * A Redis key prefix no other test uses, named with this JVM's tag (queue's {@code
   * TestRedis.newRedis()} makes the settings of the server with it).
   */
  public String newKeyPrefix() {
    return RUN + "_" + COUNTER.incrementAndGet();
  }

  /**
   * At JVM exit, on servers named by {@code PUNCTUAL_TEST_DATABASE_URL} and {@code
   * PUNCTUAL_TEST_REDIS_URL} (those the tests started go away with them): drops the databases left
   * (the template last) and deletes the keys of this JVM's prefixes.
   */
  private void cleanUp() {
    // This JVM's Redis keys are deleted by queue's TestRedis, which made them.
    if (System.getenv("PUNCTUAL_TEST_DATABASE_URL") == null) {
      return;
    }
    List<String> left = new ArrayList<>(databases);
    left.remove(TEMPLATE);
    left.add(TEMPLATE);
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        Statement s = c.createStatement()) {
      for (String name : left) {
        try {
          s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
          databases.remove(name);
        } catch (SQLException e) {
          System.err.println("test clean-up: could not drop database " + name + ": " + e);
        }
      }
    } catch (SQLException e) {
      System.err.println("test clean-up: could not drop this run's databases " + left + ": " + e);
    }
  }

  public String redisUrl() {
    return redisUrl;
  }

  private String urlOf(String database) {
    int slash = adminUrl.lastIndexOf('/');
    int query = adminUrl.indexOf('?', slash);
    return adminUrl.substring(0, slash + 1)
        + database
        + (query < 0 ? "" : adminUrl.substring(query));
  }

  /**
   * Commits in {@code database} (one this JVM created) return before their WAL is flushed, as on
   * the embedded server, which runs without fsync: on a server of the machine's own that flushes,
   * every commit otherwise waits for the disk, and the suite takes several times as long. What is
   * tested is the SQL and its results, not the durability of test data; nothing of the server's own
   * configuration changes.
   */
  private void withoutWaitingForFlush(String database) {
    execute("ALTER DATABASE " + database + " SET synchronous_commit = off");
  }

  private void execute(String sql) {
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
