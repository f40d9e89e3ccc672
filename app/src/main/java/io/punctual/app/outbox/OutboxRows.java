package io.punctual.app.outbox;

import io.punctual.store.sql.SqlFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The statements on {@code punctual_outbox}, each one guarded SQL statement in {@code
 * OutboxRows/*.sql} beside this class; times are the caller's clock's, passed in.
 */
final class OutboxRows {
  private static final SqlFiles SQL = new SqlFiles(OutboxRows.class);

  /**
   * A row taken by a relay: its id, the stored request (JSON), its traceparent, failures so far.
   */
  record Row(long id, String request, String traceparent, int attempts) {}

  private OutboxRows() {}

  static long insert(Connection c, String request, String key, String traceparent, Instant now)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("insert"))) {
      s.setString(1, request);
      s.setString(2, key);
      s.setString(3, traceparent);
      s.setTimestamp(4, Timestamp.from(now));
      s.setTimestamp(5, Timestamp.from(now));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Wakes the listening relays when the caller's transaction commits (not before, nor if not). */
  static void notifyRelays(Connection c) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("notify"))) {
      s.execute();
    }
  }

  /**
   * Takes up to {@code limit} rows due at {@code now}, lowest ids first, skipping those another
   * relay holds, and leases them: none is due again before {@code leaseUntil}. Auto-commit: the row
   * locks last only for this statement.
   */
  static List<Row> claim(Connection c, Instant now, Instant leaseUntil, int limit)
      throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(SQL.get("claim"))) {
      s.setTimestamp(1, Timestamp.from(leaseUntil));
      s.setTimestamp(2, Timestamp.from(now));
      s.setInt(3, limit);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4)));
        }
      }
    }
    rows.sort(Comparator.comparingLong(Row::id));
    return rows;
  }

  /** The row's job exists in Punctual: the row goes. */
  static void delete(Connection c, long id) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("delete"))) {
      s.setLong(1, id);
      s.executeUpdate();
    }
  }

  /** A failure worth trying again: recorded, the row due again at {@code next}. */
  static void retryAt(Connection c, long id, String error, Instant next) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("retry"))) {
      s.setString(1, error);
      s.setTimestamp(2, Timestamp.from(next));
      s.setLong(3, id);
      s.executeUpdate();
    }
  }

  /** Rows waiting, rows set aside, and the enqueue time of the oldest waiting row. */
  static OutboxBacklog backlog(Connection c) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("backlog"));
        ResultSet rs = s.executeQuery()) {
      rs.next();
      Timestamp oldest = rs.getTimestamp(3);
      return new OutboxBacklog(
          rs.getLong(1), rs.getLong(2), oldest == null ? null : oldest.toInstant());
    }
  }

  /** A refusal for good: recorded, the row set aside ({@code dead_at}), never forwarded again. */
  static void bury(Connection c, long id, String error, Instant now) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SQL.get("dead"))) {
      s.setString(1, error);
      s.setTimestamp(2, Timestamp.from(now));
      s.setLong(3, id);
      s.executeUpdate();
    }
  }
}
