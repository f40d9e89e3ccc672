package io.punctual.app;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.OutboxRelaySettings;
import io.punctual.app.outbox.PunctualOutbox;
import io.punctual.client.JobRequest;
import io.punctual.client.PunctualClient;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An application whose database is not Punctual's: its own database (with {@code punctual_outbox})
 * behind its own pool, the Punctual API in a JVM of its own on Punctual's database and Redis
 * ({@link ApiMain}), embedded workers on Punctual's database ({@link EmbeddedHarness}), a client of
 * the API and relays built on demand. Closes them all.
 */
final class OutboxHarness implements AutoCloseable {
  final EmbeddedHarness punctual = new EmbeddedHarness();
  final PostgresSettings appDb = TestStores.get().newDatabase();
  final HikariDataSource appPool;
  final PunctualOutbox outbox = PunctualOutbox.create(Clock.systemUTC());
  final int apiPort;
  final PunctualClient client;
  private JavaProcess api;
  private final List<AutoCloseable> opened = new ArrayList<>();

  OutboxHarness() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(appDb.url);
    config.setUsername(appDb.user);
    config.setPassword(appDb.password);
    config.setMaximumPoolSize(16);
    config.setPoolName("the-app-db");
    this.appPool = new HikariDataSource(config);
    try (Connection c = appPool.getConnection()) {
      PunctualOutbox.createTable(c);
      c.createStatement().execute("CREATE TABLE orders (id bigint PRIMARY KEY)");
    }
    try (ServerSocket s = new ServerSocket(0)) {
      this.apiPort = s.getLocalPort();
    }
    this.client = PunctualClient.create(apiUri()).withApiKey(ApiMain.ADMIN_KEY);
    startApi();
  }

  URI apiUri() {
    return URI.create("http://127.0.0.1:" + apiPort);
  }

  /** Starts the API's JVM (again) on its port, waiting until it answers. */
  void startApi() throws Exception {
    api =
        JavaProcess.start(
            ApiMain.class,
            "api ready",
            Duration.ofSeconds(60),
            punctual.postgres.url,
            punctual.postgres.user,
            punctual.postgres.password,
            punctual.redis.url,
            punctual.redis.keyPrefix,
            Integer.toString(apiPort));
  }

  /** {@code kill -9} of the API's JVM; returns its exit status. */
  int killApi() throws InterruptedException {
    return api.kill();
  }

  /** A relay in this JVM on the application's pool (closed with the harness, not started). */
  OutboxRelay relay(OutboxRelaySettings settings) {
    return relay(settings, new MetricRegistry());
  }

  /** The same, its meters in {@code metrics}. */
  OutboxRelay relay(OutboxRelaySettings settings, MetricRegistry metrics) {
    OutboxRelay relay = new OutboxRelay(appPool, client, Clock.systemUTC(), settings, metrics);
    opened.add(relay);
    return relay;
  }

  /** A relay in a JVM of its own, started; {@code lease} its lease; {@code more}: RelayMain's. */
  JavaProcess relayProcess(Duration lease, String... more) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                appDb.url,
                appDb.user,
                appDb.password,
                apiUri().toString(),
                ApiMain.ADMIN_KEY,
                Long.toString(lease.toMillis())));
    args.addAll(List.of(more));
    JavaProcess p =
        JavaProcess.start(
            RelayMain.class, "relay started", Duration.ofSeconds(60), args.toArray(String[]::new));
    opened.add(p);
    return p;
  }

  /** The application's order {@code id} and its job, in one transaction, committed. */
  long commitOrder(long id, JobRequest job) throws SQLException {
    try (Connection c = appPool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, id);
      long row = outbox.enqueue(c, job);
      c.commit();
      return row;
    }
  }

  static void insertOrder(Connection c, long id) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
      s.setLong(1, id);
      s.executeUpdate();
    }
  }

  /** A job request for order {@code id}: its payload names the order. */
  static JobRequest orderJob(String type, long id) {
    return JobRequest.builder(type).payload(Map.of("order", id)).build();
  }

  /** A count on Punctual's database. */
  long punctualCount(String sql) throws SQLException {
    return count(punctual.appPool, sql);
  }

  /** A count on the application's database. */
  long count(String sql) throws SQLException {
    return count(appPool, sql);
  }

  private static long count(javax.sql.DataSource db, String sql) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql);
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Rows left in the outbox, dead ones included. */
  long outboxRows() throws SQLException {
    return count("SELECT count(*) FROM punctual_outbox");
  }

  /** Punctual's jobs of {@code type}, counted by order (their payload's {@code order}). */
  Map<Long, Integer> jobsByOrder(String type) throws SQLException {
    Map<Long, Integer> jobs = new HashMap<>();
    try (Connection c = punctual.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT (payload->>'order')::bigint, count(*) FROM jobs WHERE type = ? GROUP BY 1")) {
      s.setString(1, type);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          jobs.put(rs.getLong(1), rs.getInt(2));
        }
      }
    }
    return jobs;
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    if (api != null) {
      api.close();
    }
    appPool.close();
    TestStores.get().dropDatabase(appDb);
    punctual.close();
  }
}
