package io.punctual.store;

import java.sql.SQLException;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.transaction.TransactionException;

/**
 * Whether a write that failed may have committed all the same. Unless PostgreSQL answered with an
 * error that rolled the transaction back (a deadlock, a statement timeout, a constraint) or no
 * connection was ever opened, the outcome is unknown: a connection error (SQLSTATE class 08), an
 * administrator's shutdown (57P01, 57P02, 57P03), a failed COMMIT and a failure without an answer
 * of PostgreSQL (I/O) may all follow a commit that went through. A caller reads back what such a
 * write left before it acts on it as failed.
 */
public final class CommitOutcome {
  private CommitOutcome() {}

  public static boolean mayHaveCommitted(Throwable failure) {
    String state = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectionException) {
        return false; // no connection was opened, so nothing was sent
      }
      if (t instanceof TransactionException) {
        return true;
      }
      if (state == null && t instanceof SQLException sql) {
        state = sql.getSQLState();
      }
    }
    return state == null || state.startsWith("08") || state.startsWith("57P");
  }
}
