package io.punctual.store;

import java.sql.SQLException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a transaction again when PostgreSQL aborted it to break a deadlock (or a serialization
 * failure). Steps that end jobs lock the jobs waiting for them in id order, but a cascade of skips
 * can still meet another transaction's locks in the other order; the loser is rolled back whole and
 * simply runs again.
 */
final class DeadlockRetry {
  private static final Logger log = LoggerFactory.getLogger(DeadlockRetry.class);
  private static final int TRIES = 5;

  private DeadlockRetry() {}

  static <T> T run(String what, Supplier<T> transaction) {
    for (int attempt = 1; ; attempt++) {
      try {
        return transaction.get();
      } catch (RuntimeException e) {
        String state = sqlState(e);
        boolean retryable = "40P01".equals(state) || "40001".equals(state);
        if (!retryable || attempt >= TRIES) {
          throw e;
        }
        log.info("{} rolled back ({}), running it again, attempt {}", what, state, attempt + 1);
      }
    }
  }

  /** The SQLSTATE of the first {@link SQLException} among the causes of {@code e}, or null. */
  static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
