package io.punctual.deploy.command;

import io.dropwizard.configuration.ConfigurationException;
import io.lettuce.core.RedisConnectionException;
import java.io.FileNotFoundException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;

/**
 * How a failed command reports itself: a one-line reason for mistakes the user can fix (bad
 * settings, a data directory in use, a missing file), the whole stack trace for anything else.
 */
final class ErrorReport {
  private ErrorReport() {}

  static void print(PrintWriter err, Throwable e) {
    if (e instanceof CommandExit exit) {
      if (exit.getMessage() != null) {
        err.println(exit.getMessage());
      }
    } else if (e instanceof ConfigurationException) {
      err.println(e.getMessage());
    } else if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
      err.println("punctual: " + e.getMessage());
      if (e.getCause() != null) {
        err.println("  caused by: " + e.getCause());
      }
    } else if (isConnectionFailure(e)) {
      err.println("punctual: cannot connect: " + firstLine(e.getMessage()));
      err.println("  cause: " + rootCause(e));
      err.println(
          "  (check postgres.url / PUNCTUAL_DATABASE_URL and redis.url / PUNCTUAL_REDIS_URL)");
    } else if (e instanceof FileNotFoundException
        || (e instanceof UncheckedIOException u && u.getCause() instanceof FileNotFoundException)) {
      err.println("punctual: " + e.getMessage());
    } else {
      err.println("punctual: " + e);
      e.printStackTrace(err);
    }
    err.flush();
  }

  /** PostgreSQL or Redis could not be reached: the stack trace would only hide the reason. */
  static boolean isConnectionFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof RedisConnectionException
          || (t instanceof SQLException sql
              && sql.getSQLState() != null
              && sql.getSQLState().startsWith("08"))) {
        return true;
      }
    }
    return false;
  }

  private static String rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
