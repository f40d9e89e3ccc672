package io.punctual.store;

import io.punctual.model.JobId;
import io.punctual.store.sql.SqlFiles;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Follow-ups spawned by a workflow's step belong to that workflow: they get its id and a step row
 * of their own (ref {@code "<spawner's ref>.spawn[<index>]"}, listed after the spawner), so that
 * reading the workflow shows them and cancelling it cancels them. Works inside a finish's
 * transaction; the SQL is in {@code SpawnedSteps/*.sql} beside this class.
 */
final class SpawnedSteps {
  private static final SqlFiles SQL = new SqlFiles(SpawnedSteps.class);

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** The step row of a job that spawns follow-ups. */
  record SpawnerStep(UUID workflowId, String ref, int position) {}

  /** A follow-up about to get its step row. */
  record NewStep(SpawnerStep spawner, UUID spawnerId, int index, UUID jobId) {}

  /**
   * Share-locks the workflows of {@code spawners} (see lockWorkflows.sql) and returns the step row
   * of each spawner that is a step of a workflow still stored; call it before the finish statement.
   */
  Map<UUID, SpawnerStep> lock(Handle h, Collection<UUID> spawners) {
    if (spawners.isEmpty()) {
      return Map.of();
    }
    Map<UUID, UUID> workflowOf = new HashMap<>();
    h.createQuery(sql("spawnerWorkflows"))
        .bind("ids", spawners.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(spawners))
        .map(
            (rs, ctx) ->
                Map.entry(rs.getObject("id", UUID.class), rs.getObject("workflow_id", UUID.class)))
        .forEach(e -> workflowOf.put(e.getKey(), e.getValue()));
    if (workflowOf.isEmpty()) {
      return Map.of();
    }
    Set<UUID> workflows = new HashSet<>(workflowOf.values());
    List<UUID> locked =
        h.createQuery(sql("lockWorkflows"))
            .bind("ids", workflows.toArray(UUID[]::new))
            .mapTo(UUID.class)
            .list();
    if (locked.isEmpty()) {
      return Map.of();
    }
    Map<UUID, SpawnerStep> out = new HashMap<>();
    h.createQuery(sql("spawnerSteps"))
        .bind("workflowIds", locked.toArray(UUID[]::new))
        .bind("jobIds", workflowOf.keySet().toArray(UUID[]::new))
        .map(
            (rs, ctx) ->
                Map.entry(
                    rs.getObject("job_id", UUID.class),
                    new SpawnerStep(
                        rs.getObject("workflow_id", UUID.class),
                        rs.getString("ref"),
                        rs.getInt("position"))))
        .forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** The ref of follow-up {@code index} of the step {@code spawner}. */
  static String ref(SpawnerStep spawner, int index) {
    return spawner.ref() + ".spawn[" + index + "]";
  }

  void insert(Handle h, List<NewStep> steps) {
    if (steps.isEmpty()) {
      return;
    }
    int n = steps.size();
    UUID[] workflowIds = new UUID[n];
    Integer[] positions = new Integer[n];
    String[] refs = new String[n];
    UUID[] jobIds = new UUID[n];
    Long[] jobMs = new Long[n];
    UUID[] spawnedBy = new UUID[n];
    for (int i = 0; i < n; i++) {
      NewStep s = steps.get(i);
      workflowIds[i] = s.spawner().workflowId();
      positions[i] = s.spawner().position();
      refs[i] = ref(s.spawner(), s.index());
      jobIds[i] = s.jobId();
      jobMs[i] = JobId.scheduledAt(s.jobId()).toEpochMilli();
      spawnedBy[i] = s.spawnerId();
    }
    h.createUpdate(sql("insertSteps"))
        .bind("workflowIds", workflowIds)
        .bind("positions", positions)
        .bind("refs", refs)
        .bind("jobIds", jobIds)
        .bind("jobMs", jobMs)
        .bind("spawnedBy", spawnedBy)
        .execute();
  }
}
