package io.punctual.store;

import io.punctual.model.Completion;
import io.punctual.model.JobState;
import io.punctual.store.sql.SqlFiles;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statement that ends a batch of attempts (succeedRetryOrFail.sql), with the guarded UPDATE of
 * each {@link Group} the batch has and no other. A batch usually has one group (every attempt
 * succeeded); the other five, run with empty arrays, were planned and started for nothing: in the
 * throughput benchmark PostgreSQL's planning per attempt fell from about 3.6 to 2.3 µs without them
 * (docs/performance-log.md, the ninth machine). Each combination's text is built once.
 */
final class FinishStatement {
  private static final SqlFiles SQL = new SqlFiles(JobTransitions.class);
  private static final String UPDATES = "/* updates */";
  private static final String APPLIED = "/* applied */";
  private static final ConcurrentHashMap<Set<Group>, String> STATEMENTS = new ConcurrentHashMap<>();

  private FinishStatement() {}

  /** A group of attempts that move their jobs alike: one named transition, one UPDATE. */
  enum Group {
    SUCCEEDED("succeeded", "succeedIds", "finishSucceeded", JobState.SUCCEEDED, false),
    RETRIED("retried", "retryIds", "finishRetried", JobState.PENDING, false),
    FAILED("failed", "failIds", "finishFailed", JobState.FAILED, false),
    SUCCEEDED_UNWRITTEN(
        "succeeded_unwritten",
        "succeedUnwrittenIds",
        "finishSucceededUnwritten",
        JobState.SUCCEEDED,
        true),
    RETRIED_UNWRITTEN(
        "retried_unwritten", "retryUnwrittenIds", "finishRetriedUnwritten", JobState.PENDING, true),
    FAILED_UNWRITTEN(
        "failed_unwritten", "failUnwrittenIds", "finishFailedUnwritten", JobState.FAILED, true);

    private final String cte;
    final String idsParameter;
    private final String file;
    private final JobState next;
    private final boolean throughUnwrittenClaim;

    Group(
        String cte,
        String idsParameter,
        String file,
        JobState next,
        boolean throughUnwrittenClaim) {
      this.cte = cte;
      this.idsParameter = idsParameter;
      this.file = file;
      this.next = next;
      this.throughUnwrittenClaim = throughUnwrittenClaim;
    }

    /**
     * Whether {@code c} is of this group: its next state, and whether its claim was never written
     * ({@code unwritten} holds those jobs).
     */
    boolean has(Completion c, Set<UUID> unwritten) {
      return c.nextState() == next && unwritten.contains(c.jobId()) == throughUnwrittenClaim;
    }
  }

  /**
   * The groups {@code completions} have. A completion of no group (its next state CANCELLED: a
   * handler stopped because its attempt is no longer current) gets only its execution row.
   */
  static Set<Group> groupsOf(List<Completion> completions, Set<UUID> unwritten) {
    Set<Group> groups = EnumSet.noneOf(Group.class);
    for (Completion c : completions) {
      for (Group g : Group.values()) {
        if (g.has(c, unwritten)) {
          groups.add(g);
          break;
        }
      }
    }
    return Collections.unmodifiableSet(groups);
  }

  /** The statement with the UPDATEs of {@code groups} (see {@link #groupsOf}). */
  static String sql(Set<Group> groups) {
    return STATEMENTS.computeIfAbsent(groups, FinishStatement::build);
  }

  private static String build(Set<Group> groups) {
    String frame = SQL.get("succeedRetryOrFail");
    if (!frame.contains(UPDATES) || !frame.contains(APPLIED)) {
      throw new IllegalStateException("succeedRetryOrFail.sql lacks " + UPDATES + " or " + APPLIED);
    }
    StringBuilder updates = new StringBuilder();
    List<String> applied = new ArrayList<>();
    for (Group g : Group.values()) {
      if (groups.contains(g)) {
        updates.append(", ").append(g.cte).append(" AS (\n").append(SQL.get(g.file)).append(")");
        applied.add("SELECT id FROM " + g.cte);
      }
    }
    return frame
        .replace(UPDATES, updates)
        .replace(
            APPLIED,
            applied.isEmpty()
                ? "SELECT CAST(NULL AS uuid) AS id WHERE false"
                : String.join(" UNION ALL ", applied));
  }
}
