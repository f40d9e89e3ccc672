package io.punctual.api.problem;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.function.Supplier;
import org.jdbi.v3.core.ConnectionException;

/**
 * Tells a store outage (worth a 503 and a retry) and a statement the API's timeout cancelled (a
 * 422: the request asked too much) from a bug.
 */
public final class StoreFailures {
  private static final String QUERY_CANCELED = "57014";

  private StoreFailures() {}

  /**
   * Whether {@code error} comes from PostgreSQL being unreachable: no connection from the pool in
   * time (HikariCP), a refused or broken connection, or the server shutting down.
   */
  public static boolean isUnavailable(Throwable error) {
    int depth = 0;
    for (Throwable t = error; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || t instanceof ConnectionException
          || t instanceof ConnectException) {
        return true;
      }
      if (t instanceof SQLException sql && isUnavailableState(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code error} comes from PostgreSQL cancelling a statement (SQLSTATE 57014, {@code
   * query_canceled}): in the API, its {@code statement_timeout} ({@code api.statementTimeout}).
   */
  public static boolean isStatementTimeout(Throwable error) {
    int depth = 0;
    for (Throwable t = error; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof SQLException sql && QUERY_CANCELED.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * What {@code query} answers; when the statement timeout cancels it, a 422 {@code
   * query-too-broad} naming {@code field} (the parameter that narrows it best).
   */
  public static <T> T narrowable(String field, Supplier<T> query) {
    try {
      return query.get();
    } catch (RuntimeException e) {
      if (isStatementTimeout(e)) {
        throw Problems.queryTooBroad(field);
      }
      throw e;
    }
  }

  private static boolean isUnavailableState(String state) {
    if (state == null) {
      return false;
    }
    // 08: connection exception; 57P01-03: admin/crash shutdown, cannot connect now; 53300: too
    // many connections.
    return state.startsWith("08")
        || state.equals("57P01")
        || state.equals("57P02")
        || state.equals("57P03")
        || state.equals("53300");
  }
}
