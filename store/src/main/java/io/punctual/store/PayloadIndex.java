package io.punctual.store;

import io.punctual.store.sql.SqlFiles;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The optional GIN index {@code jobs_payload} ({@code jsonb_path_ops}) that serves {@code GET
 * /api/v1/jobs?payload=...}: built without blocking writers (the partitioned index alone, then each
 * partition's index {@code CONCURRENTLY}, attached one by one; partitions created later get theirs
 * with the table), or dropped. The reaper calls {@link #ensure} with {@code reaper.payloadIndex}.
 * It costs every row version of a job an index insert: see docs/performance.md.
 */
public final class PayloadIndex {
  private static final SqlFiles SQL = new SqlFiles(PayloadIndex.class);
  private static final Pattern PARTITION = Pattern.compile("jobs_p[0-9]{8}");

  private final Jdbi jdbi;

  public PayloadIndex(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Whether the index exists and covers every partition. */
  public boolean valid() {
    return jdbi.withHandle(PayloadIndex::state).orElse(false);
  }

  /**
   * Builds the index ({@code wanted}) or drops it, if not so already; returns whether it changed
   * anything.
   */
  public boolean ensure(boolean wanted) {
    return jdbi.withHandle(
        h -> {
          Optional<Boolean> state = state(h);
          if (!wanted) {
            if (state.isEmpty()) {
              return false;
            }
            h.execute(SQL.get("drop"));
            return true;
          }
          if (state.orElse(false)) {
            return false;
          }
          h.execute(SQL.get("parent"));
          List<String> missing = h.createQuery(SQL.get("missing")).mapTo(String.class).list();
          for (String partition : missing) {
            if (!PARTITION.matcher(partition).matches()) {
              throw new IllegalStateException("unexpected partition of jobs: " + partition);
            }
            String index = partition + "_payload";
            // Not in a transaction (CONCURRENTLY cannot be); a failed build leaves an invalid
            // index, dropped here at the next try.
            h.execute("DROP INDEX IF EXISTS " + index);
            h.execute(
                "CREATE INDEX CONCURRENTLY "
                    + index
                    + " ON "
                    + partition
                    + " USING gin (payload jsonb_path_ops)");
            h.execute("ALTER INDEX jobs_payload ATTACH PARTITION " + index);
          }
          return true;
        });
  }

  private static Optional<Boolean> state(Handle h) {
    return h.createQuery(SQL.get("state")).mapTo(Boolean.class).findOne();
  }
}
