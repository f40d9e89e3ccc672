package io.punctual.api.bulk;

import io.punctual.store.JobFilter;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The {@code bulk_actions} and {@code bulk_action_jobs} tables (V16, V19): an action, the jobs it
 * has still to act on, its progress, and the API process working on it ({@code owner}, with its
 * heartbeat), readable from any API instance.
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
   * Stores action {@code id}, owned by {@code owner}, with the jobs {@code filter} matches now, in
   * one transaction; empty (nothing stored) when they are more than {@code max}.
   */
  public OptionalInt create(
      UUID id,
      String action,
      String filterJson,
      UUID keyId,
      JobFilter filter,
      int max,
      String owner) {
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
                .bind("owner", owner)
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

  /** An action as its owner works on it. */
  public record Owned(UUID id, String namespace, String action) {}

  /** What one batch acted on: how many of its jobs changed, and anything to do after commit. */
  public record Acted<T>(int changed, T afterCommit) {}

  /** Acts on a batch of jobs inside the batch's transaction. */
  @FunctionalInterface
  public interface BatchAction<T> {
    Acted<T> act(Handle h, Owned action, List<UUID> jobs, Instant now);
  }

  /** The end of one {@link #step}. */
  public sealed interface Step<T> {
    /** A batch was acted on and counted; more may follow. */
    record Batch<T>(int size, Acted<T> acted) implements Step<T> {}

    /** Nothing was left: the action is {@code done} now (after {@code acted}, if not null). */
    record Finished<T>(int size, Acted<T> acted) implements Step<T> {}

    /** {@code owner} no longer owns the action (taken over, or ended): it must stop. */
    record Lost<T>() implements Step<T> {}
  }

  /**
   * One batch of action {@code id}, in one transaction: checks that {@code owner} still owns it
   * (locking its row), takes at most {@code limit} jobs off its list, acts on them ({@code act}, in
   * the same transaction), adds them to {@code done}/{@code failed} and beats the owner's
   * heartbeat. A batch shorter than {@code limit} ends the action. Whatever stops the transaction
   * leaves the list, the counts and the jobs as they were: the batch is acted on once or not at
   * all, by whichever process commits it.
   */
  public <T> Step<T> step(UUID id, String owner, int limit, BatchAction<T> act) {
    return jdbi.inTransaction(
        h -> {
          Optional<Owned> owned =
              h.createQuery(SQL.get("lockOwned"))
                  .bind("id", id)
                  .bind("owner", owner)
                  .map(
                      (rs, ctx) -> new Owned(id, rs.getString("namespace"), rs.getString("action")))
                  .findOne();
          if (owned.isEmpty()) {
            return new Step.Lost<>();
          }
          List<UUID> batch =
              h
                  .createQuery(SQL.get("nextBatch"))
                  .bind("bulkId", id)
                  .bind("limit", limit)
                  .mapTo(UUID.class)
                  .list()
                  .stream()
                  .sorted() // one lock order for the jobs of every batch
                  .toList();
          Acted<T> acted = null;
          Instant now = clock.instant();
          if (!batch.isEmpty()) {
            acted = act.act(h, owned.get(), batch, now);
            h.createUpdate(SQL.get("progress"))
                .bind("id", id)
                .bind("done", acted.changed())
                .bind("failed", batch.size() - acted.changed())
                .bind("now", clock.instant())
                .execute();
          }
          if (batch.size() < limit) {
            end(h, id, owner, null);
            return new Step.Finished<>(batch.size(), acted);
          }
          return new Step.Batch<>(batch.size(), acted);
        });
  }

  /** Action {@code id}, if it is running and {@code owner} owns it. */
  public Optional<Owned> owned(UUID id, String owner) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("owned"))
                .bind("id", id)
                .bind("owner", owner)
                .map((rs, ctx) -> new Owned(id, rs.getString("namespace"), rs.getString("action")))
                .findOne());
  }

  /**
   * Beats {@code owner}'s heartbeat on action {@code id} without a batch (it waits); false when the
   * action is no longer {@code owner}'s.
   */
  public boolean beat(UUID id, String owner) {
    return jdbi.withHandle(
            h ->
                h.createUpdate(SQL.get("beat"))
                    .bind("id", id)
                    .bind("owner", owner)
                    .bind("now", clock.instant())
                    .execute())
        == 1;
  }

  /** A running action this process now owns, taken over from one that stopped working on it. */
  public record TakenOver(Owned action, int takeovers, String lastError) {}

  /**
   * Takes over at most {@code limit} running actions without owner or whose owner's heartbeat is
   * older than {@code staleBefore}; they are {@code owner}'s now.
   */
  public List<TakenOver> takeOver(String owner, Instant staleBefore, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("takeOver"))
                .bind("owner", owner)
                .bind("staleBefore", staleBefore)
                .bind("limit", limit)
                .bind("now", clock.instant())
                .map(
                    (rs, ctx) ->
                        new TakenOver(
                            new Owned(
                                rs.getObject("id", UUID.class),
                                rs.getString("namespace"),
                                rs.getString("action")),
                            rs.getInt("takeovers"),
                            rs.getString("error")))
                .list());
  }

  /**
   * Gives action {@code id} up ({@code error}: why, kept while it waits; null at a clean stop), for
   * the next takeover to take at once.
   */
  public void release(UUID id, String owner, String error) {
    jdbi.useHandle(
        h ->
            h.createUpdate(SQL.get("release"))
                .bind("id", id)
                .bind("owner", owner)
                .bind("error", error)
                .bind("now", clock.instant())
                .execute());
  }

  /** Gives up every running action {@code owner} holds (the process stops). */
  public int releaseAll(String owner) {
    return jdbi.withHandle(
        h ->
            h.createUpdate(SQL.get("releaseAll"))
                .bind("owner", owner)
                .bind("now", clock.instant())
                .execute());
  }

  /**
   * Marks the action {@code failed} with {@code error} (the jobs not reached are left untouched),
   * if {@code owner} still owns it; drops its list.
   */
  public void fail(UUID id, String owner, String error) {
    jdbi.useTransaction(h -> end(h, id, owner, error));
  }

  private void end(Handle h, UUID id, String owner, String error) {
    int ended =
        h.createUpdate(SQL.get("finish"))
            .bind("id", id)
            .bind("owner", owner)
            .bind("status", error == null ? "done" : "failed")
            .bind("error", error)
            .bind("now", clock.instant())
            .execute();
    if (ended == 1) {
      h.createUpdate(SQL.get("clearJobs")).bind("id", id).execute();
    }
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
