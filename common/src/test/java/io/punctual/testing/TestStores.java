package io.punctual.testing;

import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.store.Migrations;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
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
 * tests never see each other's data.
 */
public final class TestStores {
  private static final String TEMPLATE = "punctual_template";
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static TestStores instance;

  private final String adminUrl;
  private final String user;
  private final String password;
  private final String redisUrl;

  private TestStores(String adminUrl, String user, String password, String redisUrl) {
    this.adminUrl = adminUrl;
    this.user = user;
    this.password = password;
    this.redisUrl = redisUrl;
  }

  public static synchronized TestStores get() {
    if (instance == null) {
      instance = start();
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
    execute("DROP DATABASE IF EXISTS " + TEMPLATE);
    execute("CREATE DATABASE " + TEMPLATE);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(urlOf(TEMPLATE));
    ds.setUser(user);
    ds.setPassword(password);
    Migrations.migrate(ds);
  }

  /** A fresh, migrated database of its own. */
  public PostgresSettings newDatabase() {
    String name = "t_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
    execute("CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
    PostgresSettings settings = new PostgresSettings(urlOf(name), user, password);
    settings.maxPoolSize = 8;
    return settings;
  }

  /** The Redis server, with a key prefix no other test uses. */
  public RedisSettings newRedis() {
    return new RedisSettings(redisUrl, "t" + UUID.randomUUID().toString().substring(0, 8));
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

  private void execute(String sql) {
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
