package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.StoreStack;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresSettings#statementTimeout}: set on every session of the pool that asks for it (the
 * API's), once per connection, and on no other pool.
 */
class StatementTimeoutIT {
  private final StoreStack stack = new StoreStack();

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void aPoolWithATimeoutCancelsALongerStatementWith57014() {
    PostgresSettings api = new PostgresSettings(stack.postgres);
    api.statementTimeout = Duration.ofMillis(300);
    try (Database database = Database.connect(api, "api")) {
      assertThat(show(database, "statement_timeout")).isEqualTo("300ms");
      assertThat(show(database, "idle_in_transaction_session_timeout")).isEqualTo("10s");

      assertThatThrownBy(() -> database.jdbi().useHandle(h -> h.execute("SELECT pg_sleep(2)")))
          .satisfies(e -> assertThat(DeadlockRetry.sqlState(e)).isEqualTo("57014"));
      // the session is usable again at once
      int one = database.jdbi().withHandle(h -> h.select("SELECT 1").mapTo(Integer.class).one());
      assertThat(one).isEqualTo(1);
    }
  }

  @Test
  void aPoolWithoutOneHasNone() {
    assertThat(show(stack.database, "statement_timeout")).isEqualTo("0");
    PostgresSettings none = new PostgresSettings(stack.postgres);
    none.idleInTransactionTimeout = Duration.ZERO;
    try (Database database = Database.connect(none, "bare")) {
      assertThat(show(database, "statement_timeout")).isEqualTo("0");
      assertThat(show(database, "idle_in_transaction_session_timeout")).isEqualTo("0");
    }
  }

  @Test
  void theSessionSettingsAreOneStatement() {
    assertThat(Database.sessionSettings(null, null)).isNull();
    assertThat(Database.sessionSettings(Duration.ZERO, Duration.ZERO)).isNull();
    assertThat(Database.sessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5)))
        .isEqualTo(
            "SELECT set_config('idle_in_transaction_session_timeout', '10000', false),"
                + " set_config('statement_timeout', '5000', false)");
  }

  private static String show(Database database, String setting) {
    return database.jdbi().withHandle(h -> h.select("SHOW " + setting).mapTo(String.class).one());
  }
}
