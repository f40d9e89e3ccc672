package io.punctual.store;

import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.store.sql.SqlFiles;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Reads back what a write of attempts left behind when its commit had an unknown outcome (the
 * connection was lost during the commit, the server shut down): the job rows as they are now and
 * the execution rows of those attempts. A worker uses it to tell a finish or a hand-back that
 * committed (its execution row is there, written by this worker with its status, and the job moved
 * on) from one that did not, before it writes the batch again.
 */
public final class AttemptReadBack {
  private static final SqlFiles SQL = new SqlFiles(AttemptReadBack.class);

  private final Jdbi jdbi;

  public AttemptReadBack(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /**
   * One attempt as stored: its job's status and current attempt, and its execution row's status and
   * worker (both null without an execution row).
   */
  public record Recorded(
      UUID jobId,
      int attempt,
      JobState jobStatus,
      int jobAttempt,
      ExecutionStatus executionStatus,
      String executionWorker) {

    /**
     * Whether a write of this attempt by {@code workerId} ending it with {@code status} and moving
     * its job to {@code nextState} committed: its execution row is that write's, and the job is no
     * longer RUNNING with this attempt (it is in {@code nextState} with it, or a later attempt
     * started since).
     */
    public boolean wrote(String workerId, ExecutionStatus status, JobState nextState) {
      if (executionStatus != status || !workerId.equals(executionWorker)) {
        return false;
      }
      return jobAttempt > attempt || (jobAttempt == attempt && jobStatus == nextState);
    }
  }

  /** The attempts of {@code attempts} whose job exists, as stored now. */
  public List<Recorded> recorded(Collection<Attempt> attempts) {
    if (attempts.isEmpty()) {
      return List.of();
    }
    return jdbi.withHandle(
        h ->
            UnnestColumns.of(List.copyOf(attempts))
                .jobKeys(Attempt::jobId)
                .ints("attempts", Attempt::attempt)
                .bind(h.createQuery(SQL.get("recorded")))
                .map(
                    (rs, ctx) -> {
                      String exec = rs.getString("exec_status");
                      return new Recorded(
                          rs.getObject("id", UUID.class),
                          rs.getInt("attempt"),
                          JobState.valueOf(rs.getString("status")),
                          rs.getInt("job_attempt"),
                          exec == null ? null : ExecutionStatus.valueOf(exec),
                          rs.getString("exec_worker_id"));
                    })
                .list());
  }
}
