package io.punctual.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.store.config.PostgresSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/** A pooled connection to PostgreSQL and the Jdbi instance every DAO uses. */
public final class Database implements AutoCloseable {
  private final HikariDataSource dataSource;
  private final Jdbi jdbi;

  private Database(HikariDataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbi = Jdbi.create(dataSource).installPlugin(new PostgresPlugin());
    BinaryArrays.register(jdbi);
  }

  public static Database connect(PostgresSettings settings, String poolName) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(settings.url);
    config.setUsername(settings.user);
    config.setPassword(settings.password);
    config.setMaximumPoolSize(settings.maxPoolSize);
    config.setMinimumIdle(Math.min(2, settings.maxPoolSize));
    config.setConnectionTimeout(settings.connectionTimeout.toMillis());
    config.setPoolName(poolName);
    // Fail fast at start-up only when asked; a pool that starts while PostgreSQL restarts recovers.
    config.setInitializationFailTimeout(-1);
    config.addDataSourceProperty("reWriteBatchedInserts", "true");
    // uuid[] parameters in binary (BinaryArrays); the driver's other binary types stay as they are.
    config.addDataSourceProperty(
        "binaryTransferEnable", Integer.toString(BinaryArrays.UUID_ARRAY_OID));
    String sessionSettings =
        sessionSettings(settings.idleInTransactionTimeout, settings.statementTimeout);
    if (sessionSettings != null) {
      config.setConnectionInitSql(sessionSettings);
    }
    config.addDataSourceProperty("ApplicationName", "punctual-" + poolName);
    return new Database(new HikariDataSource(config));
  }

  /**
   * The statement each new session of the pool runs first (once per connection, never per request),
   * setting the timeouts that are not zero; null when none is.
   */
  static String sessionSettings(Duration idleInTransaction, Duration statement) {
    List<String> sets = new ArrayList<>();
    if (idleInTransaction != null && !idleInTransaction.isZero()) {
      sets.add(
          "set_config('idle_in_transaction_session_timeout', '"
              + idleInTransaction.toMillis()
              + "', false)");
    }
    if (statement != null && !statement.isZero()) {
      sets.add("set_config('statement_timeout', '" + statement.toMillis() + "', false)");
    }
    return sets.isEmpty() ? null : "SELECT " + String.join(", ", sets);
  }

  public Jdbi jdbi() {
    return jdbi;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
