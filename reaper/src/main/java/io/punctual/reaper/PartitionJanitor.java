package io.punctual.reaper;

import io.punctual.store.PartitionManager;
import io.punctual.store.registry.WorkerRegistry;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the daily partitions in order: creates those ahead, drops those past retention (never one
 * whose day still holds a job that is not final), drops the days of the audit log past {@code
 * audit.retention}, forgets idempotency keys as old as the oldest jobs kept, and prunes the worker
 * registry.
 */
public final class PartitionJanitor {
  private static final Logger log = LoggerFactory.getLogger(PartitionJanitor.class);
  private static final SqlFiles SQL = new SqlFiles(PartitionJanitor.class);
  private static final int KEY_BATCH = 10_000;

  /** The audit log's days created ahead, so that the API's writer seldom creates one itself. */
  private static final int AUDIT_DAYS_AHEAD = 2;

  private final Clock clock;
  private final Jdbi jdbi;
  private final PartitionManager partitions;
  private final WorkerRegistry workers;
  private final ReaperSettings settings;

  public PartitionJanitor(
      Clock clock,
      Jdbi jdbi,
      PartitionManager partitions,
      WorkerRegistry workers,
      ReaperSettings settings) {
    this.clock = clock;
    this.jdbi = jdbi;
    this.partitions = partitions;
    this.workers = workers;
    this.settings = settings;
  }

  /**
   * What one pass did. {@code partitionsDropped}: tables of jobs, executions and the audit log
   * ({@code audit_log_p...}).
   */
  public record Upkeep(
      int partitionsCreated,
      List<String> partitionsDropped,
      List<String> partitionsKept,
      int keysForgotten,
      int workersPruned,
      int edgesForgotten,
      int workflowsForgotten) {}

  public Upkeep runOnce() {
    int created = partitions.ensureAhead();
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    LocalDate jobsBefore = today.minusDays(settings.jobRetention.toDays());
    LocalDate executionsBefore = today.minusDays(settings.executionRetention.toDays());
    List<String> dropped = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    jdbi.useHandle(
        h ->
            h.createQuery(SQL.get("dropExpired"))
                .bind("jobsBefore", jobsBefore)
                .bind("executionsBefore", executionsBefore)
                .map(
                    (rs, ctx) -> {
                      String table = rs.getString("table_name");
                      (rs.getString("action").equals("dropped") ? dropped : kept).add(table);
                      return table;
                    })
                .list());
    created +=
        jdbi.withHandle(
            h ->
                h.createQuery(SQL.get("ensureAuditAhead"))
                    .bind("from", today)
                    .bind("to", today.plusDays(AUDIT_DAYS_AHEAD))
                    .mapTo(Integer.class)
                    .one());
    LocalDate auditBefore = today.minusDays(settings.auditRetention.toDays());
    dropped.addAll(
        jdbi.withHandle(
            h ->
                h.createQuery(SQL.get("dropAuditExpired"))
                    .bind("before", auditBefore)
                    .mapTo(String.class)
                    .list()));
    int forgotten = forget("forgetKeys", jobsBefore);
    int edges = forget("forgetEdges", jobsBefore);
    int workflows = forget("forgetWorkflows", jobsBefore);
    int pruned = workers.prune(clock.instant().minus(settings.workerRetention));
    if (!dropped.isEmpty()) {
      log.info("dropped partitions past retention: {}", dropped);
    }
    if (!kept.isEmpty()) {
      log.warn("kept partitions past retention because they hold jobs not final yet: {}", kept);
    }
    return new Upkeep(
        created, List.copyOf(dropped), List.copyOf(kept), forgotten, pruned, edges, workflows);
  }

  /** Runs a bounded delete ({@code PartitionJanitor/<statement>.sql}) until nothing is left. */
  private int forget(String statement, LocalDate before) {
    int total = 0;
    while (true) {
      int n =
          jdbi.withHandle(
              h ->
                  h.createUpdate(SQL.get(statement))
                      .bind("before", before.atStartOfDay(ZoneOffset.UTC).toInstant())
                      .bind("limit", KEY_BATCH)
                      .execute());
      total += n;
      if (n < KEY_BATCH) {
        return total;
      }
    }
  }
}
