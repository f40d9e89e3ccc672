package io.punctual.api.bulk;

import io.punctual.common.sql.SqlFiles;
import io.punctual.common.store.JobFilter;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The {@code bulk_actions} and {@code bulk_action_jobs} tables (V16): an action, the jobs it took
 * when accepted, and its progress, readable from any API instance.
 */
public final class BulkActionStore {
  private static final SqlFiles SQL = new SqlFiles(BulkActionStore.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public BulkActionStore(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  /**
   * Stores action {@code id} with the jobs {@code filter} matches now, in one transaction; empty
   * (nothing stored) when they are more than {@code max}.
   */
  public OptionalInt create(
      UUID id, String action, String filterJson, UUID keyId, JobFilter filter, int max) {
    try {
      return jdbi.inTransaction(
          h -> {
            int taken =
                filter
                    .bind(
                        h.createUpdate(filter.expand(SQL.get("take"))),
                        filter.fromOrEarliest(),
                        filter.toOrLatest())
                    .bind("bulkId", id)
                    .bind("max", max)
                    .execute();
            if (taken > max) {
              throw new TooMany(); // rolls back what was taken
            }
            h.createUpdate(SQL.get("insert"))
                .bind("id", id)
                .bind("namespace", filter.namespace())
                .bind("action", action)
                .bind("filter", filterJson)
                .bind("count", taken)
                .bind("keyId", keyId)
                .bind("now", clock.instant())
                .execute();
            return OptionalInt.of(taken);
          });
    } catch (TooMany e) {
      return OptionalInt.empty();
    }
  }

  /** A filter matching more jobs than a bulk action may take. */
  private static final class TooMany extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooMany() {
      super(null, null, false, false);
    }
  }

  /** The next at most {@code limit} jobs of action {@code id}, taken off its list. */
  public List<UUID> nextBatch(UUID id, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("nextBatch"))
                .bind("bulkId", id)
                .bind("limit", limit)
                .mapTo(UUID.class)
                .list());
  }

  public void progress(UUID id, int done, int failed) {
    jdbi.useHandle(
        h ->
            h.createUpdate(SQL.get("progress"))
                .bind("id", id)
                .bind("done", done)
                .bind("failed", failed)
                .bind("now", clock.instant())
                .execute());
  }

  /** Marks the action {@code done}, or {@code failed} with {@code error}; drops its list. */
  public void finish(UUID id, String error) {
    jdbi.useTransaction(
        h -> {
          h.createUpdate(SQL.get("finish"))
              .bind("id", id)
              .bind("status", error == null ? "done" : "failed")
              .bind("error", error)
              .bind("now", clock.instant())
              .execute();
          h.createUpdate(SQL.get("clearJobs")).bind("id", id).execute();
        });
  }

  public Optional<BulkAction> find(String namespace, UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("find"))
                .bind("id", id)
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) ->
                        new BulkAction(
                            rs.getObject("id", UUID.class).toString(),
                            rs.getString("action"),
                            rs.getString("status"),
                            rs.getInt("count"),
                            rs.getInt("done"),
                            rs.getInt("failed"),
                            rs.getString("error")))
                .findOne());
  }
}
