package io.punctual.store.registry;

import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The {@code workers} table: each worker process writes its row when it starts, on every heartbeat
 * and when it stops; the API lists it ({@code GET /api/v1/workers}); the reaper prunes it. The SQL
 * is in {@code WorkerRegistry/*.sql} beside this class.
 */
public final class WorkerRegistry {
  private static final SqlFiles SQL = new SqlFiles(WorkerRegistry.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public WorkerRegistry(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /**
   * What a worker says about itself when it starts. {@code types}: the job types it has a handler
   * for (null: not said).
   */
  public record Registration(
      String id,
      String host,
      long pid,
      List<String> namespaces,
      int concurrency,
      Duration heartbeatInterval,
      List<String> types) {
    /** A registration that does not say which types the worker handles. */
    public Registration(
        String id,
        String host,
        long pid,
        List<String> namespaces,
        int concurrency,
        Duration heartbeatInterval) {
      this(id, host, pid, namespaces, concurrency, heartbeatInterval, null);
    }
  }

  public void register(Registration r) {
    jdbi.useHandle(
        h ->
            h.createUpdate(sql("register"))
                .bind("id", r.id())
                .bind("host", r.host())
                .bind("pid", r.pid())
                .bind("namespaces", r.namespaces().toArray(String[]::new))
                .bind("concurrency", r.concurrency())
                .bind("heartbeatIntervalMs", r.heartbeatInterval().toMillis())
                .bind("types", r.types() == null ? null : r.types().toArray(String[]::new))
                .bind("now", clock.instant())
                .execute());
  }

  /** A live worker serving a namespace, and the types it handles (null: it did not say). */
  public record LiveWorker(String id, List<String> types) {}

  /**
   * The live workers serving {@code namespace} (not stopped, heard of within {@link
   * #STALE_AFTER_BEATS} heartbeat intervals), at most 1,000.
   */
  public List<LiveWorker> live(String namespace) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("live"))
                .bind("namespace", namespace)
                .bind("staleAfterBeats", STALE_AFTER_BEATS)
                .bind("now", clock.instant())
                .map(
                    (rs, ctx) -> {
                      java.sql.Array types = rs.getArray("types");
                      return new LiveWorker(
                          rs.getString("id"),
                          types == null ? null : List.of((String[]) types.getArray()));
                    })
                .list());
  }

  /** Records a heartbeat; false when the row is gone (pruned) or marked stopped. */
  public boolean beat(String id, int running) {
    return jdbi.withHandle(
            h ->
                h.createUpdate(sql("beat"))
                    .bind("id", id)
                    .bind("running", running)
                    .bind("now", clock.instant())
                    .execute())
        > 0;
  }

  public void stop(String id) {
    jdbi.useHandle(
        h -> h.createUpdate(sql("stop")).bind("id", id).bind("now", clock.instant()).execute());
  }

  /** Deletes the rows of workers not heard of since {@code before}; returns how many. */
  public int prune(Instant before) {
    return jdbi.withHandle(h -> h.createUpdate(sql("prune")).bind("before", before).execute());
  }

  /** Whether a worker is alive, silent for longer than three heartbeats, or stopped. */
  public enum Status {
    ALIVE,
    STALE,
    STOPPED
  }

  /** An attempt a worker runs now. */
  public record RunningJob(
      UUID id, String type, int attempt, Instant startedAt, Instant heartbeatAt) {}

  /** A worker as listed over the API. */
  public record WorkerView(
      String id,
      String host,
      long pid,
      List<String> namespaces,
      int concurrency,
      Duration heartbeatInterval,
      Status status,
      int running,
      Instant startedAt,
      Instant heartbeatAt,
      Instant stoppedAt,
      List<RunningJob> jobs) {}

  /** A worker counts as stale after this many heartbeat intervals without one. */
  public static final int STALE_AFTER_BEATS = 3;

  /**
   * The workers serving {@code namespace} (at most {@code limit}) with the attempts of that
   * namespace each one runs. A worker's {@code running} is the number of those attempts, read in
   * the same query as the list, so the two always agree (the count a worker reports with its
   * heartbeat is older, and covers all its namespaces).
   */
  public List<WorkerView> list(String namespace, int limit) {
    Instant now = clock.instant();
    return jdbi.withHandle(
        h -> {
          List<WorkerView> rows =
              h.createQuery(sql("list"))
                  .bind("namespace", namespace)
                  .bind("limit", limit)
                  .map(
                      (rs, ctx) -> {
                        Duration interval = Duration.ofMillis(rs.getLong("heartbeat_interval_ms"));
                        Instant beat = Columns.instant(rs, "heartbeat_at");
                        Instant stopped = Columns.instant(rs, "stopped_at");
                        Status status =
                            stopped != null
                                ? Status.STOPPED
                                : beat.plus(interval.multipliedBy(STALE_AFTER_BEATS)).isBefore(now)
                                    ? Status.STALE
                                    : Status.ALIVE;
                        return new WorkerView(
                            rs.getString("id"),
                            rs.getString("host"),
                            rs.getLong("pid"),
                            Arrays.asList((String[]) rs.getArray("namespaces").getArray()),
                            rs.getInt("concurrency"),
                            interval,
                            status,
                            0, // counted below, from the attempts listed
                            Columns.instant(rs, "started_at"),
                            beat,
                            stopped,
                            List.of());
                      })
                  .list();
          if (rows.isEmpty()) {
            return rows;
          }
          Map<String, List<RunningJob>> jobs = new HashMap<>();
          h.createQuery(sql("runningJobs"))
              .bind("namespace", namespace)
              .bind("workerIds", rows.stream().map(WorkerView::id).toArray(String[]::new))
              .map(
                  (rs, ctx) ->
                      jobs.computeIfAbsent(rs.getString("worker_id"), k -> new ArrayList<>())
                          .add(
                              new RunningJob(
                                  rs.getObject("id", UUID.class),
                                  rs.getString("type"),
                                  rs.getInt("attempt"),
                                  Columns.instant(rs, "started_at"),
                                  Columns.instant(rs, "heartbeat_at"))))
              .list();
          List<WorkerView> out = new ArrayList<>(rows.size());
          for (WorkerView w : rows) {
            List<RunningJob> running = List.copyOf(jobs.getOrDefault(w.id(), List.of()));
            out.add(
                new WorkerView(
                    w.id(),
                    w.host(),
                    w.pid(),
                    w.namespaces(),
                    w.concurrency(),
                    w.heartbeatInterval(),
                    w.status(),
                    running.size(),
                    w.startedAt(),
                    w.heartbeatAt(),
                    w.stoppedAt(),
                    running));
          }
          return out;
        });
  }
}
