package io.punctual.store.sql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Reads the nullable columns every row mapper has: null where the column is SQL NULL. */
public final class Columns {
  private Columns() {}

  /** A {@code timestamptz} column as an instant. */
  public static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp ts = rs.getTimestamp(column);
    return ts == null ? null : ts.toInstant();
  }

  /** An {@code integer} column. */
  public static Integer integer(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, Integer.class);
  }
}
