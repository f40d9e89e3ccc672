package io.punctual.store;

import io.punctual.model.Progress;
import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * What running handlers report besides their results: each attempt's latest progress ({@code
 * job_progress}) and its log lines ({@code job_logs}, V34). The worker writes them in batches; the
 * API reads them for one job at a time.
 */
public final class AttemptOutputs {
  private static final SqlFiles SQL = new SqlFiles(AttemptOutputs.class);

  private final Jdbi jdbi;

  public AttemptOutputs(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** The latest progress an attempt reported, at {@code at}. */
  public record ProgressReport(
      UUID jobId, int attempt, String namespace, Progress progress, Instant at) {}

  /** An attempt's {@code seq}-th log line (from 1), logged at {@code at}. */
  public record LogReport(
      UUID jobId, int attempt, String namespace, int seq, String line, Instant at) {}

  /** A job's latest reported progress: of which attempt, and when. */
  public record AttemptProgress(int attempt, Progress progress, Instant updatedAt) {}

  /** A stored log line. */
  public record LogLine(int seq, Instant at, String line) {}

  /** Stores a batch of reports in one transaction (two statements at most). */
  public void write(List<ProgressReport> progress, List<LogReport> lines) {
    if (progress.isEmpty() && lines.isEmpty()) {
      return;
    }
    jdbi.useTransaction(
        h -> {
          if (!progress.isEmpty()) {
            UnnestColumns.of(progress)
                .jobKeys(ProgressReport::jobId)
                .ints("attempts", ProgressReport::attempt)
                .texts("namespaces", ProgressReport::namespace)
                .texts("percents", r -> Float.toString(r.progress().percent()))
                .longs("dones", r -> r.progress().done())
                .longs("totals", r -> r.progress().total())
                .millis("atMs", ProgressReport::at)
                .bind(h.createUpdate(SQL.get("upsertProgress")))
                .execute();
          }
          if (!lines.isEmpty()) {
            UnnestColumns.of(lines)
                .jobKeys(LogReport::jobId)
                .ints("attempts", LogReport::attempt)
                .ints("seqs", LogReport::seq)
                .texts("namespaces", LogReport::namespace)
                .millis("atMs", LogReport::at)
                .texts("lines", LogReport::line)
                .bind(h.createUpdate(SQL.get("insertLogs")))
                .execute();
          }
        });
  }

  /** The progress of the job's latest attempt that reported any. */
  public Optional<AttemptProgress> latestProgress(String namespace, UUID jobId) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("latestProgress"))
                .bind("id", jobId)
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) -> {
                      long done = rs.getLong("done");
                      boolean counted = !rs.wasNull();
                      long total = rs.getLong("total");
                      return new AttemptProgress(
                          rs.getInt("attempt"),
                          new Progress(
                              rs.getFloat("percent"),
                              counted ? done : null,
                              counted ? total : null),
                          rs.getTimestamp("updated_at").toInstant());
                    })
                .findOne());
  }

  /** The latest attempt of the job that logged a line. */
  public Optional<Integer> lastLoggedAttempt(String namespace, UUID jobId) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("lastLoggedAttempt"))
                .bind("id", jobId)
                .bind("namespace", namespace)
                .mapTo(Integer.class)
                .findOne());
  }

  /** An attempt's log lines after {@code afterSeq} (0: from the first), in order, at most limit. */
  public List<LogLine> logs(String namespace, UUID jobId, int attempt, int afterSeq, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("logs"))
                .bind("id", jobId)
                .bind("namespace", namespace)
                .bind("attempt", attempt)
                .bind("afterSeq", afterSeq)
                .bind("limit", limit)
                .map(
                    (rs, ctx) ->
                        new LogLine(
                            rs.getInt("seq"),
                            rs.getTimestamp("logged_at").toInstant(),
                            rs.getString("line")))
                .list());
  }
}
