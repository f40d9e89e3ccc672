package io.punctual.common.store;

import io.punctual.common.job.JobId;
import io.punctual.common.job.JobState;
import io.punctual.common.job.Priority;
import io.punctual.common.job.RunCondition;
import io.punctual.common.store.BlockedVerdict.Edge;
import io.punctual.common.store.JobStore.QueueEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;

/**
 * Moves BLOCKED jobs on, inside the transaction of the step that ended what they wait for (a
 * finish, a cancel, a rescue, a submission whose dependencies already ended): each waiting job is
 * locked, judged by {@link BlockedVerdict} on the current state of its upstream jobs, and made
 * PENDING or SKIPPED. A SKIPPED job is final, so the jobs waiting for it are judged next, until
 * nothing moves. The SQL is in {@code DependencyResolver/*.sql} beside this class.
 */
final class DependencyResolver {
  private static final ClasspathSqlLocator SQL = ClasspathSqlLocator.create();

  private static String sql(String name) {
    return SQL.locate(DependencyResolver.class, name);
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
        .bindMap(JobStore.scheduledBounds(ids))
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
    int n = edges.size();
    UUID[] jobIds = new UUID[n];
    Long[] jobMs = new Long[n];
    UUID[] dependsOn = new UUID[n];
    Long[] dependsOnMs = new Long[n];
    String[] namespaces = new String[n];
    String[] conditions = new String[n];
    String[] kinds = new String[n];
    for (int i = 0; i < n; i++) {
      NewEdge e = edges.get(i);
      jobIds[i] = e.jobId();
      jobMs[i] = JobId.scheduledAt(e.jobId()).toEpochMilli();
      dependsOn[i] = e.dependsOn();
      dependsOnMs[i] = JobId.scheduledAt(e.dependsOn()).toEpochMilli();
      namespaces[i] = e.namespace();
      conditions[i] = e.condition().wireName();
      kinds[i] = e.parent() ? "parent" : "dependency";
    }
    h.createUpdate(sql("insertEdges"))
        .bind("jobIds", jobIds)
        .bind("jobMs", jobMs)
        .bind("dependsOnIds", dependsOn)
        .bind("dependsOnMs", dependsOnMs)
        .bind("namespaces", namespaces)
        .bind("conditions", conditions)
        .bind("kinds", kinds)
        .execute();
  }

  /**
   * The jobs {@code ended} just reached a final state: judges every BLOCKED job waiting for them
   * (and, through skips, for those), and returns the jobs that became PENDING.
   */
  List<QueueEntry> afterEnded(Handle h, Collection<UUID> ended, Instant now) {
    List<QueueEntry> released = new ArrayList<>();
    Collection<UUID> frontier = ended;
    while (!frontier.isEmpty()) {
      List<UUID> waiting =
          h.createQuery(sql("dependents"))
              .bind("ids", frontier.toArray(UUID[]::new))
              .mapTo(UUID.class)
              .list();
      if (waiting.isEmpty()) {
        break;
      }
      frontier = judge(h, waiting, now, released);
    }
    return released;
  }

  /**
   * Judges new BLOCKED jobs at once (what they wait for may have ended before they were stored);
   * returns the jobs that became PENDING, including those released through skips.
   */
  List<QueueEntry> judgeNew(Handle h, Collection<UUID> blocked, Instant now) {
    List<QueueEntry> released = new ArrayList<>();
    Set<UUID> skipped = judge(h, blocked, now, released);
    released.addAll(afterEnded(h, skipped, now));
    return released;
  }

  /** Locks, judges and moves the jobs among {@code ids} still BLOCKED; returns those SKIPPED. */
  private Set<UUID> judge(Handle h, Collection<UUID> ids, Instant now, List<QueueEntry> released) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    List<UUID> locked =
        h.createQuery(sql("lockBlocked"))
            .bind("ids", ids.toArray(UUID[]::new))
            .bindMap(JobStore.scheduledBounds(ids))
            .mapTo(UUID.class)
            .list();
    if (locked.isEmpty()) {
      return Set.of();
    }
    Map<UUID, List<Edge>> edges = new HashMap<>();
    Set<UUID> upstream = new LinkedHashSet<>();
    h.createQuery(sql("edges"))
        .bind("ids", locked.toArray(UUID[]::new))
        .map(
            (rs, ctx) ->
                new Edge(
                    rs.getObject("job_id", UUID.class),
                    rs.getObject("depends_on_id", UUID.class),
                    RunCondition.parse(rs.getString("condition")).orElseThrow(),
                    "parent".equals(rs.getString("kind"))))
        .forEach(
            e -> {
              edges.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e);
              upstream.add(e.upstreamId());
            });
    Map<UUID, JobState> states = new HashMap<>();
    if (!upstream.isEmpty()) {
      h.createQuery(sql("states"))
          .bind("ids", upstream.toArray(UUID[]::new))
          .bindMap(JobStore.scheduledBounds(upstream))
          .map(
              (rs, ctx) ->
                  Map.entry(
                      rs.getObject("id", UUID.class), JobState.valueOf(rs.getString("status"))))
          .forEach(e -> states.put(e.getKey(), e.getValue()));
    }
    List<UUID> moving = new ArrayList<>();
    List<String> nextStates = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (UUID id : locked) {
      switch (BlockedVerdict.of(edges.getOrDefault(id, List.of()), states)) {
        case BlockedVerdict.Wait w -> {}
        case BlockedVerdict.Unblock u -> {
          moving.add(id);
          nextStates.add(JobState.Transition.UNBLOCK.to().name());
          reasons.add(null);
        }
        case BlockedVerdict.Skip s -> {
          moving.add(id);
          nextStates.add(JobState.Transition.SKIP.to().name());
          reasons.add("skipped: " + s.reason());
        }
      }
    }
    if (moving.isEmpty()) {
      return Set.of();
    }
    Set<UUID> skipped = new LinkedHashSet<>();
    h.createQuery(sql("judge"))
        .bind("ids", moving.toArray(UUID[]::new))
        .bind(
            "scheduledMs",
            moving.stream().map(id -> JobId.scheduledAt(id).toEpochMilli()).toArray(Long[]::new))
        .bind("nextStates", nextStates.toArray(String[]::new))
        .bind("reasons", reasons.toArray(String[]::new))
        .bindMap(JobStore.scheduledBounds(moving))
        .bind("now", now)
        .map(
            (rs, ctx) -> {
              UUID id = rs.getObject("id", UUID.class);
              if (JobState.valueOf(rs.getString("status")) == JobState.SKIPPED) {
                skipped.add(id);
              } else {
                released.add(
                    new QueueEntry(
                        id,
                        rs.getString("namespace"),
                        Priority.values()[rs.getShort("priority")],
                        JobRowMapper.instant(rs, "run_at")));
              }
              return id;
            })
        .list();
    return skipped;
  }
}
