package io.punctual.deploy.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads PostgreSQL and the side-effect log after faults ({@link FaultInjectionE2E}, a scenario of
 * {@link NetworkFaultsE2E}, {@link PostgresFailoverE2E}) and counts what the promise forbids: an
 * accepted job missing or not final, a SUCCEEDED job whose result is not its final attempt's (a
 * stale attempt wrote it) or whose final attempt left no side effect, a side effect repeated
 * without an attempt recorded LOST to explain it, a schedule occurrence planned twice or skipped.
 */
final class FaultChecker {
  private static final Set<String> FINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED");

  private final String jdbcUrl;

  FaultChecker(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
  }

  /** What the jobs checked came to. */
  record Outcome(
      int accepted,
      int missing,
      int inPostgres,
      int notFinal,
      int succeeded,
      int staleResults,
      int lostAttempts,
      int jobsWithLostAttempt,
      int workersWithLostAttempt,
      int duplicates,
      int duplicatesExplained,
      int succeededWithoutEffect,
      List<String> unexplained) {
    Map<String, Object> asMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("accepted", accepted);
      m.put("lost (accepted, not in PostgreSQL)", missing);
      m.put("stuck (not final)", notFinal);
      m.put("succeeded", succeeded);
      m.put("results written by a stale attempt", staleResults);
      m.put("attempts recorded LOST", lostAttempts);
      m.put("duplicate executions", duplicates);
      m.put("duplicates explained by a LOST attempt", duplicatesExplained);
      m.put("SUCCEEDED without the succeeding attempt's side effect", succeededWithoutEffect);
      return m;
    }
  }

  /** Checks the jobs {@code ids} against PostgreSQL and their side effects. */
  Outcome check(Collection<UUID> ids, List<SideEffectServer.Effect> effects) throws SQLException {
    return check(Set.copyOf(ids), true, effects);
  }

  /**
   * Checks every job in PostgreSQL, and every side effect; {@code accepted} (the ids the API
   * answered 201 for) are counted missing when not there.
   */
  Outcome checkEveryJob(Collection<UUID> accepted, List<SideEffectServer.Effect> effects)
      throws SQLException {
    return check(Set.copyOf(accepted), false, effects);
  }

  private Outcome check(
      Set<UUID> accepted, boolean onlyAccepted, List<SideEffectServer.Effect> effects)
      throws SQLException {
    String only = onlyAccepted ? " WHERE %s = ANY(?)" : "";
    Map<UUID, String[]> jobs = new HashMap<>(); // status, attempt, worker, result attempt
    Map<UUID, Map<Integer, String[]>> executions = new HashMap<>(); // attempt -> status, worker
    try (Connection c = connect()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT id, status, attempt, worker_id, result->>'attempt' FROM jobs"
                  + only.formatted("id"))) {
        if (onlyAccepted) {
          s.setArray(1, c.createArrayOf("uuid", accepted.toArray()));
        }
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            jobs.put(
                rs.getObject(1, UUID.class),
                new String[] {rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)});
          }
        }
      }
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT job_id, attempt, status, worker_id FROM job_executions"
                  + only.formatted("job_id"))) {
        if (onlyAccepted) {
          s.setArray(1, c.createArrayOf("uuid", accepted.toArray()));
        }
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            executions
                .computeIfAbsent(rs.getObject(1, UUID.class), k -> new HashMap<>())
                .put(rs.getInt(2), new String[] {rs.getString(3), rs.getString(4)});
          }
        }
      }
    }
    Map<UUID, List<Integer>> ran = new HashMap<>(); // the attempts whose side effect happened
    Map<UUID, List<String>> ranWhen = new HashMap<>(); // "attempt@time" of each side effect
    for (SideEffectServer.Effect e : effects) {
      if (!onlyAccepted || accepted.contains(e.jobId())) {
        ran.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e.attempt());
        ranWhen.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e.attempt() + "@" + e.at());
      }
    }
    int missing = 0;
    for (UUID id : accepted) {
      if (!jobs.containsKey(id)) {
        missing++;
      }
    }
    int notFinal = 0;
    int succeeded = 0;
    int stale = 0;
    int withoutEffect = 0;
    for (var job : jobs.entrySet()) {
      String[] j = job.getValue();
      if (!FINAL.contains(j[0])) {
        notFinal++;
      }
      if (!j[0].equals("SUCCEEDED")) {
        continue;
      }
      succeeded++;
      int attempt = Integer.parseInt(j[1]);
      String[] row = executions.getOrDefault(job.getKey(), Map.of()).get(attempt);
      boolean consistent =
          row != null
              && row[0].equals("SUCCEEDED")
              && row[1].equals(j[2])
              && String.valueOf(attempt).equals(j[3]);
      if (!consistent) {
        stale++;
      }
      if (!ran.getOrDefault(job.getKey(), List.of()).contains(attempt)) {
        withoutEffect++;
      }
    }
    int lost = 0;
    int jobsWithLost = 0;
    Set<String> workersWithLost = new HashSet<>();
    for (Map<Integer, String[]> attempts : executions.values()) {
      boolean any = false;
      for (String[] row : attempts.values()) {
        if (row[0].equals("LOST")) {
          lost++;
          any = true;
          workersWithLost.add(row[1]);
        }
      }
      jobsWithLost += any ? 1 : 0;
    }
    int duplicates = 0;
    int explained = 0;
    List<String> unexplained = new ArrayList<>(); // the first ten, for the report
    for (var e : ran.entrySet()) {
      if (e.getValue().size() > 1) {
        duplicates++;
        String[] j = jobs.get(e.getKey());
        int finalAttempt = j == null ? -1 : Integer.parseInt(j[1]);
        Map<Integer, String[]> rows = executions.getOrDefault(e.getKey(), Map.of());
        if (explainedByLost(e.getValue(), finalAttempt, rows)) {
          explained++;
        } else if (unexplained.size() < 10) {
          StringBuilder rowsSeen = new StringBuilder();
          rows.forEach(
              (a, r) -> rowsSeen.append(' ').append(a).append('=').append(String.join("/", r)));
          unexplained.add(
              e.getKey()
                  + " job "
                  + (j == null ? "missing" : String.join("/", j))
                  + " | side effects "
                  + ranWhen.get(e.getKey())
                  + " | attempts' rows"
                  + rowsSeen);
        }
      }
    }
    return new Outcome(
        accepted.size(),
        missing,
        jobs.size(),
        notFinal,
        succeeded,
        stale,
        lost,
        jobsWithLost,
        workersWithLost.size(),
        duplicates,
        explained,
        withoutEffect,
        List.copyOf(unexplained));
  }

  /**
   * Whether each side effect beyond the final attempt's came from a different attempt recorded LOST
   * (rescued after a crash, a pause or a cut: it did its work, then its result was refused or never
   * came). Two side effects of one attempt are never explained.
   */
  private static boolean explainedByLost(
      List<Integer> attempts, int finalAttempt, Map<Integer, String[]> executions) {
    List<Integer> extra = new ArrayList<>(attempts);
    extra.remove(Integer.valueOf(finalAttempt));
    if (extra.size() != attempts.size() - 1 || new HashSet<>(extra).size() != extra.size()) {
      return false;
    }
    for (int attempt : extra) {
      String[] row = executions.get(attempt);
      if (attempt == finalAttempt || row == null || !row[0].equals("LOST")) {
        return false;
      }
    }
    return true;
  }

  /** A schedule's occurrences: how many fire times, planned twice, and gaps in the sequence. */
  record Occurrences(long fireTimes, long jobsTwice, long gaps, long missed) {}

  /** Checks every fire time of the schedule between its first and its last exists exactly once. */
  Occurrences occurrences(UUID schedule, long intervalSeconds) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT count(*) FROM schedule_occurrences WHERE schedule_id = '"
                    + schedule
                    + "'),"
                    + " (SELECT count(*) FROM (SELECT occurrence_at FROM jobs WHERE schedule_id = '"
                    + schedule
                    + "' AND occurrence_at IS NOT NULL GROUP BY 1 HAVING count(*) > 1) d),"
                    + " (SELECT coalesce(extract(epoch FROM max(fire_at) - min(fire_at))::bigint / "
                    + intervalSeconds
                    + " + 1 - count(*), 0) FROM schedule_occurrences WHERE schedule_id = '"
                    + schedule
                    + "'),"
                    + " (SELECT count(*) FROM schedule_occurrences WHERE schedule_id = '"
                    + schedule
                    + "' AND outcome = 'missed')")) {
      rs.next();
      return new Occurrences(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, "postgres", "");
  }
}
