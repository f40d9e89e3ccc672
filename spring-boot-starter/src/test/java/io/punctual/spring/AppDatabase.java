package io.punctual.spring;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application's database on the tests' server: a fresh database of its own (Punctual's schema
 * migrated, as {@link TestStores} makes them) with the application's table {@code app_orders},
 * behind the application's pool. Closing it closes the pool and drops the database.
 */
final class AppDatabase implements AutoCloseable {
  final PostgresSettings settings = TestStores.get().newDatabase();
  final HikariDataSource pool;

  AppDatabase(int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(settings.url);
    config.setUsername(settings.user);
    config.setPassword(settings.password);
    config.setMaximumPoolSize(poolSize);
    pool = new HikariDataSource(config);
    new JdbcTemplate(pool).execute("CREATE TABLE app_orders (id bigint PRIMARY KEY)");
  }

  @Override
  public void close() {
    pool.close();
    TestStores.get().dropDatabase(settings);
  }
}
