package io.punctual.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import org.jdbi.v3.core.ConnectionFactory;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;

/**
 * A Jdbi {@link Handle} on a JDBC connection whose transaction the caller holds (an application's
 * own): closing the handle neither closes the connection nor ends its transaction; the caller
 * commits or rolls back.
 */
final class CallerTransaction {
  private CallerTransaction() {}

  /**
   * A handle on {@code connection}, which must be in a transaction (auto-commit off): the store's
   * statements then commit or roll back with the caller's own.
   *
   * @throws IllegalStateException when the connection is in auto-commit mode
   */
  static Handle open(Connection connection) {
    Objects.requireNonNull(connection, "connection");
    try {
      if (connection.getAutoCommit()) {
        throw new IllegalStateException(
            "the connection is in auto-commit mode: begin a transaction first"
                + " (connection.setAutoCommit(false)), then commit it after the submit");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the connection's auto-commit mode", e);
    }
    CALLER.set(connection);
    try {
      return SHARED.open();
    } finally {
      CALLER.remove();
    }
  }

  /** The connection {@link #open} is opening a handle on, for {@link #SHARED}'s factory. */
  private static final ThreadLocal<Connection> CALLER = new ThreadLocal<>();

  /**
   * One configured Jdbi for every caller's connection: configuring one (its plugins, arguments and
   * mappers) costs about 2 ms of CPU, more than the submit itself, so it is done once; its factory
   * hands out the connection being opened on this thread, and never closes it.
   */
  private static final Jdbi SHARED = shared();

  private static Jdbi shared() {
    Jdbi jdbi =
        Database.configured(
            Jdbi.create(
                new ConnectionFactory() {
                  @Override
                  public Connection openConnection() {
                    Connection c = CALLER.get();
                    if (c == null) {
                      throw new IllegalStateException("no caller's connection on this thread");
                    }
                    return c;
                  }

                  @Override
                  public void closeConnection(Connection c) {
                    // The caller's: it stays open, its transaction too.
                  }
                }));
    // The transaction is the caller's: a handle closed inside it neither commits nor rolls back.
    jdbi.getConfig(Handles.class).setForceEndTransactions(false);
    return jdbi;
  }
}
