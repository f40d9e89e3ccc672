package io.punctual.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a write on the Spring-managed transaction's connection when one is active (that of a {@code
 * DataSourceTransactionManager}, or any manager binding the same {@link DataSource}), else in a
 * transaction of its own committed at once; what must follow the commit runs after it (and not at
 * all after a rollback). {@link TransactionalJobs} and {@link TransactionalOutbox} write so.
 */
final class SpringTransaction {
  private SpringTransaction() {}

  /** A write on a connection in a transaction. */
  interface Write<T> {
    T on(Connection c) throws SQLException;
  }

  /**
   * {@code write}'s result; {@code afterCommit} (null: nothing) gets it once the transaction
   * committed.
   *
   * @throws IllegalStateException the write or the commit failed with an {@link SQLException}
   */
  static <T> T write(DataSource dataSource, Write<T> write, Consumer<T> afterCommit) {
    if (TransactionSynchronizationManager.isActualTransactionActive()
        && TransactionSynchronizationManager.isSynchronizationActive()) {
      Connection c = DataSourceUtils.getConnection(dataSource);
      try {
        T result = write.on(c);
        if (afterCommit != null) {
          TransactionSynchronizationManager.registerSynchronization(
              new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                  afterCommit.accept(result);
                }
              });
        }
        return result;
      } catch (SQLException e) {
        throw new IllegalStateException("the write failed: " + e.getMessage(), e);
      } finally {
        DataSourceUtils.releaseConnection(c, dataSource);
      }
    }
    T result;
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        result = write.on(c);
        c.commit();
      } catch (RuntimeException | SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the write failed: " + e.getMessage(), e);
    }
    if (afterCommit != null) {
      afterCommit.accept(result);
    }
    return result;
  }
}
