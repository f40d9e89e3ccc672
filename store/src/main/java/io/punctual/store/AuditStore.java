package io.punctual.store;

import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log in PostgreSQL ({@code audit_log}, V13, summaries V25): append-only, in daily
 * partitions (UTC) created here on first use of a day and dropped by the reaper past {@code
 * audit.retention}.
 */
public final class AuditStore {
  private static final Logger log = LoggerFactory.getLogger(AuditStore.class);
  private static final SqlFiles SQL = new SqlFiles(AuditStore.class);

  /** check_violation: what PostgreSQL answers for a row no partition accepts. */
  private static final String NO_PARTITION_FOR_ROW = "23514";

  private static final Instant LATEST = Instant.parse("9999-01-01T00:00:00Z");

  private final Jdbi jdbi;
  private final Set<LocalDate> known = ConcurrentHashMap.newKeySet();

  public AuditStore(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** An entry for one request. */
  public static final String REQUEST = "request";

  /** An entry counting refused authentications of one source, minute, reason and route. */
  public static final String REFUSALS = "refusals";

  /** An entry counting entries left out while the API's buffer was full. */
  public static final String DROPPED = "dropped";

  /**
   * One mutating request as audited ({@link #REQUEST}), or a summary of many events ({@link
   * #REFUSALS}, {@link #DROPPED}: {@code count} of them from {@code firstAt} to {@code at}, V25).
   * Times are kept to the microsecond (PostgreSQL's precision). Only {@code at}, {@code action},
   * {@code status}, {@code kind} and {@code count} are always there.
   */
  public record Entry(
      Instant at,
      String requestId,
      UUID keyId,
      String keyName,
      String namespace,
      String action,
      String target,
      int status,
      String problem,
      String kind,
      int count,
      Instant firstAt,
      String source,
      String reason) {
    public Entry {
      at = at.truncatedTo(ChronoUnit.MICROS);
      firstAt = firstAt == null ? null : firstAt.truncatedTo(ChronoUnit.MICROS);
    }

    /** The entry of one request. */
    public Entry(
        Instant at,
        String requestId,
        UUID keyId,
        String keyName,
        String namespace,
        String action,
        String target,
        int status,
        String problem) {
      this(
          at, requestId, keyId, keyName, namespace, action, target, status, problem, REQUEST, 1,
          null, null, null);
    }
  }

  /** An entry as stored: {@code id} orders the entries of one instant. */
  public record Stored(long id, Entry entry) {}

  /** Where a page ends: the last entry of the previous page. */
  public record Cursor(Instant at, long id) {}

  /**
   * Filters of {@link #page}; null means "any". {@code namespaces}: the namespaces the reader may
   * see, null for all.
   */
  public record Query(
      Instant from,
      Instant to,
      List<String> namespaces,
      String namespace,
      UUID keyId,
      String action,
      Cursor cursor,
      int limit) {}

  /** A page, newest first, and the cursor of the next one (null at the end). */
  public record Page(List<Stored> items, Cursor next) {}

  /** Stores {@code entries} in one statement, in their order, creating their days if need be. */
  public void insert(List<Entry> entries) {
    if (entries.isEmpty()) {
      return;
    }
    Set<LocalDate> days = new TreeSet<>();
    for (Entry e : entries) {
      days.add(LocalDate.ofInstant(e.at(), ZoneOffset.UTC));
    }
    for (LocalDate day : days) {
      if (!known.contains(day)) {
        ensure(day);
      }
    }
    try {
      insertRows(entries);
    } catch (RuntimeException e) {
      if (!NO_PARTITION_FOR_ROW.equals(DeadlockRetry.sqlState(e))) {
        throw e;
      }
      log.warn("an audit partition of {} was missing (dropped meanwhile?), creating it", days);
      known.removeAll(days);
      days.forEach(this::ensure);
      insertRows(entries);
    }
  }

  private void insertRows(List<Entry> entries) {
    jdbi.useHandle(
        h ->
            UnnestColumns.of(entries)
                .longs("atMicros", e -> ChronoUnit.MICROS.between(Instant.EPOCH, e.at()))
                .texts("requestIds", Entry::requestId)
                .uuids("keyIds", Entry::keyId)
                .texts("keyNames", Entry::keyName)
                .texts("namespaces", Entry::namespace)
                .texts("actions", Entry::action)
                .texts("targets", Entry::target)
                .ints("statuses", Entry::status)
                .texts("problems", Entry::problem)
                .texts("kinds", Entry::kind)
                .ints("counts", Entry::count)
                .longs(
                    "firstAtMicros",
                    e ->
                        e.firstAt() == null
                            ? null
                            : ChronoUnit.MICROS.between(Instant.EPOCH, e.firstAt()))
                .texts("sources", Entry::source)
                .texts("reasons", Entry::reason)
                .bind(h.createUpdate(SQL.get("insertMany")))
                .execute());
  }

  private void ensure(LocalDate day) {
    jdbi.useHandle(
        h ->
            h.createQuery(SQL.get("ensureDays"))
                .bind("from", day)
                .bind("to", day)
                .mapTo(Integer.class)
                .one());
    known.add(day);
  }

  /** Entries newest first (by time, then id), after the cursor. */
  public Page page(Query q) {
    Instant from = q.from() == null ? Instant.EPOCH : q.from();
    Instant to = q.to() == null ? LATEST : q.to();
    if (q.cursor() != null) {
      Instant cursorEnd = q.cursor().at().plus(1, ChronoUnit.MICROS);
      if (cursorEnd.isBefore(to)) {
        to = cursorEnd;
      }
    }
    Instant fromBound = from;
    Instant toBound = to;
    List<Stored> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(SQL.get("page"))
                    .bind("from", fromBound)
                    .bind("to", toBound)
                    .bind("anyNamespace", q.namespaces() == null)
                    .bind(
                        "namespaces",
                        q.namespaces() == null
                            ? new String[0]
                            : q.namespaces().toArray(String[]::new))
                    .bind("namespace", q.namespace())
                    .bind("keyId", q.keyId())
                    .bind("action", q.action())
                    .bind("cursorAt", q.cursor() == null ? null : q.cursor().at())
                    .bind("cursorId", q.cursor() == null ? null : q.cursor().id())
                    .bind("limit", q.limit() + 1)
                    .map(
                        (rs, ctx) ->
                            new Stored(
                                rs.getLong("id"),
                                new Entry(
                                    rs.getObject("at", OffsetDateTime.class).toInstant(),
                                    rs.getString("request_id"),
                                    rs.getObject("key_id", UUID.class),
                                    rs.getString("key_name"),
                                    rs.getString("namespace"),
                                    rs.getString("action"),
                                    rs.getString("target"),
                                    rs.getInt("status"),
                                    rs.getString("problem"),
                                    rs.getString("kind"),
                                    rs.getInt("count"),
                                    instant(rs.getObject("first_at", OffsetDateTime.class)),
                                    rs.getString("source"),
                                    rs.getString("reason"))))
                    .list());
    if (rows.size() > q.limit()) {
      List<Stored> page = List.copyOf(rows.subList(0, q.limit()));
      Stored last = page.get(page.size() - 1);
      return new Page(page, new Cursor(last.entry().at(), last.id()));
    }
    return new Page(rows, null);
  }

  private static Instant instant(OffsetDateTime time) {
    return time == null ? null : time.toInstant();
  }
}
