package io.punctual.store;

import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.model.RunCondition;
import io.punctual.store.BlockedVerdict.Edge;
import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Moves BLOCKED jobs on, inside the transaction of the step that ended what they wait for (a
 * finish, a cancel, a rescue, a submission whose dependencies already ended): each waiting job is
 * locked, judged by {@link BlockedVerdict} on the current state of its upstream jobs, and made
 * PENDING or SKIPPED. A SKIPPED job is final, so the jobs waiting for it are judged next, until
 * nothing moves. The SQL is in {@code DependencyResolver/*.sql} beside this class.
 */
final class DependencyResolver {
  private static final SqlFiles SQL = new SqlFiles(DependencyResolver.class);

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** One edge to store: {@code jobId} waits for {@code dependsOn} on {@code condition}. */
  record NewEdge(
      UUID jobId, UUID dependsOn, String namespace, RunCondition condition, boolean parent) {}

  /** A stored job new jobs will wait for, as it is now. */
  record StoredUpstream(UUID id, String namespace, JobState status) {}

  /**
   * Share-locks the stored jobs that new jobs will wait for (see lockStored.sql) and returns them
   * as they are now; ids that do not exist are missing from the answer.
   */
  Map<UUID, StoredUpstream> lockStored(Handle h, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<UUID, StoredUpstream> out = new HashMap<>();
    h.createQuery(sql("lockStored"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .map(
            (rs, ctx) ->
                new StoredUpstream(
                    rs.getObject("id", UUID.class),
                    rs.getString("namespace"),
                    JobState.valueOf(rs.getString("status"))))
        .forEach(u -> out.put(u.id(), u));
    return out;
  }

  void insertEdges(Handle h, List<NewEdge> edges) {
    if (edges.isEmpty()) {
      return;
    }
    UnnestColumns.of(edges)
        .uuids("jobIds", NewEdge::jobId)
        .millis("jobMs", e -> JobId.scheduledAt(e.jobId()))
        .uuids("dependsOnIds", NewEdge::dependsOn)
        .millis("dependsOnMs", e -> JobId.scheduledAt(e.dependsOn()))
        .texts("namespaces", NewEdge::namespace)
        .texts("conditions", e -> e.condition().wireName())
        .texts("kinds", e -> e.parent() ? "parent" : "dependency")
        .bind(h.createUpdate(sql("insertEdges")))
        .execute();
  }

  /**
   * The jobs {@code ended} just reached a final state: judges every BLOCKED job waiting for them
   * (and, through skips, for those), and returns the jobs that became PENDING.
   *
   * <p>Each waiting job is judged on the edges to the jobs that just ended, not on all of its
   * edges: one of them ruled out skips it, otherwise its count of edges still open ({@code
   * waiting_for}) goes down by the edges that now hold. Only when that count reaches zero are all
   * of its edges read again, to confirm (once per job: a fan-in of N children costs O(N) in all,
   * not O(N) per child). The count is exact because every step that ends a job comes here in its
   * own transaction, under the job's lock, and a job stored after an upstream ended never counted
   * it.
   */
  List<QueueEntry> afterEnded(Handle h, Collection<UUID> ended, Instant now) {
    List<QueueEntry> released = new ArrayList<>();
    Collection<UUID> frontier = ended;
    while (!frontier.isEmpty()) {
      frontier = judgeEnds(h, frontier, now, released);
    }
    return released;
  }

  /**
   * Judges new BLOCKED jobs at once on all their edges (what they wait for may have ended before
   * they were stored); returns the jobs that became PENDING, including those released through
   * skips.
   */
  List<QueueEntry> judgeNew(Handle h, Collection<UUID> blocked, Instant now) {
    List<QueueEntry> released = new ArrayList<>();
    Set<UUID> skipped = judgeFully(h, blocked, now, released);
    released.addAll(afterEnded(h, skipped, now));
    return released;
  }

  /**
   * One round of {@link #afterEnded}: judges the jobs waiting for {@code ended} on those edges;
   * returns the jobs it SKIPPED (the next round's).
   */
  private Set<UUID> judgeEnds(
      Handle h, Collection<UUID> ended, Instant now, List<QueueEntry> released) {
    Map<UUID, List<Edge>> endedEdges = new HashMap<>();
    h.createQuery(sql("endedEdges"))
        .bind("ids", ended.toArray(UUID[]::new))
        .map(DependencyResolver::edge)
        .forEach(e -> endedEdges.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e));
    if (endedEdges.isEmpty()) {
      return Set.of();
    }
    Map<UUID, Integer> locked = lockBlocked(h, endedEdges.keySet());
    if (locked.isEmpty()) {
      return Set.of();
    }
    Map<UUID, JobState> states = states(h, ended);
    Moves moves = new Moves();
    List<UUID> recheck = new ArrayList<>();
    for (var entry : locked.entrySet()) {
      UUID id = entry.getKey();
      List<Edge> edges = endedEdges.get(id);
      if (BlockedVerdict.of(edges, states) instanceof BlockedVerdict.Skip skip) {
        moves.skip(id, skip);
        continue;
      }
      Integer open = entry.getValue();
      int left = open == null ? 0 : open - edges.size();
      if (left > 0) {
        moves.countDown(id, left);
      } else {
        recheck.add(id);
      }
    }
    Set<UUID> skipped = moves.apply(h, now, released);
    if (!recheck.isEmpty()) {
      skipped = new LinkedHashSet<>(skipped);
      skipped.addAll(judgeFully(h, recheck, now, released));
    }
    return skipped;
  }

  /**
   * Locks the jobs among {@code ids} still BLOCKED and judges them on all their edges: moves them
   * on, or records how many edges are still open; returns those SKIPPED.
   */
  private Set<UUID> judgeFully(
      Handle h, Collection<UUID> ids, Instant now, List<QueueEntry> released) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    Map<UUID, Integer> locked = lockBlocked(h, ids);
    if (locked.isEmpty()) {
      return Set.of();
    }
    Map<UUID, List<Edge>> edges = new HashMap<>();
    Set<UUID> upstream = new LinkedHashSet<>();
    h.createQuery(sql("edges"))
        .bind("ids", locked.keySet().toArray(UUID[]::new))
        .map(DependencyResolver::edge)
        .forEach(
            e -> {
              edges.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e);
              upstream.add(e.upstreamId());
            });
    Map<UUID, JobState> states = states(h, upstream);
    Moves moves = new Moves();
    for (UUID id : locked.keySet()) {
      switch (BlockedVerdict.of(edges.getOrDefault(id, List.of()), states)) {
        case BlockedVerdict.Wait w -> moves.countDown(id, w.open());
        case BlockedVerdict.Unblock u -> moves.unblock(id);
        case BlockedVerdict.Skip skip -> moves.skip(id, skip);
      }
    }
    return moves.apply(h, now, released);
  }

  private static Edge edge(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws java.sql.SQLException {
    return new Edge(
        rs.getObject("job_id", UUID.class),
        rs.getObject("depends_on_id", UUID.class),
        RunCondition.parse(rs.getString("condition")).orElseThrow(),
        "parent".equals(rs.getString("kind")));
  }

  /**
   * Locks the jobs among {@code ids} that are still BLOCKED, in id order (lockBlocked.sql); returns
   * each with its count of open edges (null if never counted).
   */
  private static Map<UUID, Integer> lockBlocked(Handle h, Collection<UUID> ids) {
    Map<UUID, Integer> locked = new LinkedHashMap<>();
    h.createQuery(sql("lockBlocked"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .map(
            (rs, ctx) -> {
              int open = rs.getInt("waiting_for");
              locked.put(rs.getObject("id", UUID.class), rs.wasNull() ? null : open);
              return null;
            })
        .list();
    return locked;
  }

  /** The current state of the jobs {@code ids}; a job that no longer exists is missing. */
  private static Map<UUID, JobState> states(Handle h, Collection<UUID> ids) {
    Map<UUID, JobState> states = new HashMap<>();
    if (ids.isEmpty()) {
      return states;
    }
    h.createQuery(sql("states"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .map(
            (rs, ctx) ->
                Map.entry(rs.getObject("id", UUID.class), JobState.valueOf(rs.getString("status"))))
        .forEach(e -> states.put(e.getKey(), e.getValue()));
    return states;
  }

  /** What a judgement decided for locked BLOCKED jobs, applied with two guarded statements. */
  private static final class Moves {
    private final List<JobTransitions.Judged> moving = new ArrayList<>();
    private final List<UUID> counted = new ArrayList<>();
    private final List<Integer> open = new ArrayList<>();

    void unblock(UUID id) {
      moving.add(new JobTransitions.Judged(id, null));
    }

    void skip(UUID id, BlockedVerdict.Skip skip) {
      moving.add(new JobTransitions.Judged(id, "skipped: " + skip.reason()));
    }

    void countDown(UUID id, int left) {
      counted.add(id);
      open.add(left);
    }

    /** Applies the moves; adds the jobs made PENDING to {@code released}, returns those SKIPPED. */
    Set<UUID> apply(Handle h, Instant now, List<QueueEntry> released) {
      if (!counted.isEmpty()) {
        h.createUpdate(sql("countDown"))
            .bind("ids", counted.toArray(UUID[]::new))
            .bind("scheduledMs", UnnestColumns.scheduledMillis(counted))
            .bind("open", open.toArray(Integer[]::new))
            .bindMap(UnnestColumns.scheduledBounds(counted))
            .execute();
      }
      if (moving.isEmpty()) {
        return Set.of();
      }
      return JobTransitions.unblockOrSkip(h, moving, now, released);
    }
  }
}
