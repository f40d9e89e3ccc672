package io.punctual.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.store.config.PostgresSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/**
 * A pooled connection to PostgreSQL and the Jdbi instance every DAO uses: a pool of its own ({@link
 * #connect}), closed with it, or a {@link DataSource} the caller owns ({@link #on}), which {@link
 * #close()} leaves open.
 */
public final class Database implements AutoCloseable {
  private final DataSource dataSource;
  private final boolean owned;
  private final Jdbi jdbi;

  private Database(DataSource dataSource, boolean owned) {
    this.dataSource = dataSource;
    this.owned = owned;
    this.jdbi = jdbiOn(dataSource);
  }

  /** A Jdbi with the store's plugins and argument types, on {@code dataSource}. */
  private static Jdbi jdbiOn(DataSource dataSource) {
    return configured(Jdbi.create(dataSource));
  }

  /** {@code jdbi} with the store's plugins and argument types. */
  static Jdbi configured(Jdbi jdbi) {
    jdbi.installPlugin(new PostgresPlugin());
    BinaryArrays.register(jdbi);
    return jdbi;
  }

  /**
   * The store on a {@link DataSource} of the caller's (an application's own pool): {@link #close()}
   * does not close it. Its connections must reach a PostgreSQL database holding Punctual's schema;
   * the pool's own settings (size, timeouts) are the caller's. {@code uuid[]} parameters go as text
   * there unless the pool's driver properties include {@code binaryTransferEnable=2951} (see {@link
   * #connect}), which only costs a little CPU.
   */
  public static Database on(DataSource dataSource) {
    return new Database(Objects.requireNonNull(dataSource, "dataSource"), false);
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
    return new Database(new HikariDataSource(config), true);
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
    if (owned && dataSource instanceof HikariDataSource pool) {
      pool.close();
    }
  }
}
