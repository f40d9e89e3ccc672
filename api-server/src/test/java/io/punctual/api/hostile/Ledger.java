package io.punctual.api.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * What the accepted (2xx) requests stored, read from their answers, against what the database
 * holds: after the corpus, every table holds exactly what was there before plus what the accepted
 * requests created (minus the schedules they deleted), so a refused request left nothing behind.
 */
final class Ledger {
  private final Set<String> jobs = new HashSet<>();
  private final Map<String, String> namespaceByJob = new HashMap<>();
  private final Map<String, Integer> edgesByJob = new HashMap<>();
  private final Set<String> workflows = new HashSet<>();
  private final Map<String, Integer> stepsByWorkflow = new HashMap<>();
  private final Set<String> schedules = new HashSet<>();
  private final Set<String> deletedSchedules = new HashSet<>();
  private final Set<String> keys = new HashSet<>();
  private final Set<String> namespaces = new HashSet<>();
  private final Map<String, Integer> quotaChanges = new HashMap<>();
  private final Map<String, Boolean> lastActive = new HashMap<>();

  /** Records what an answer to {@code route} with status {@code status} stored. */
  void record(Route route, int status, JsonNode body) {
    if (status < 200 || status > 299 || body == null) {
      return;
    }
    switch (route.effect()) {
      case JOB -> job(body);
      case JOB_ITEMS -> body.get("items").forEach(this::job);
      case WORKFLOW -> {
        String id = body.get("id").asText();
        workflows.add(id);
        stepsByWorkflow.put(id, body.get("jobs").size());
        body.get("jobs").forEach(this::job);
      }
      case SCHEDULE -> schedules.add(body.get("id").asText());
      case SCHEDULE_DELETED -> deletedSchedules.add(body.get("id").asText());
      case KEY -> keys.add(body.get("id").asText());
      case NAMESPACE -> namespaces.add(body.get("name").asText());
      case QUOTA -> quotaChanges.merge(body.get("name").asText(), 1, Integer::sum);
      case ACTIVE -> lastActive.put(body.get("name").asText(), body.get("active").asBoolean());
      case NONE -> {}
    }
  }

  private void job(JsonNode job) {
    String id = job.get("id").asText();
    jobs.add(id);
    if (job.path("namespace").isTextual()) {
      namespaceByJob.put(id, job.get("namespace").asText());
    }
    int edges = job.path("parentId").isTextual() ? 1 : 0;
    edges += job.path("dependsOn").size();
    edgesByJob.put(id, edges);
  }

  /** The namespace of each accepted job whose answer named it, by id. */
  Map<String, String> jobNamespaces() {
    return Map.copyOf(namespaceByJob);
  }

  int accepted() {
    return jobs.size()
        + workflows.size()
        + schedules.size()
        + keys.size()
        + namespaces.size()
        + quotaChanges.size();
  }

  /** The ids in each table before the corpus ran. */
  record Snapshot(
      Set<String> jobs,
      Set<String> workflows,
      Set<String> schedules,
      Set<String> keys,
      long edges,
      long steps,
      Set<String> idempotencyKeyJobs,
      Set<String> occurrenceJobs,
      Map<String, NamespaceRow> namespaces) {}

  /** What the corpus may change of a namespace's row. */
  record NamespaceRow(boolean active, long quotaVersion) {}

  static Snapshot snapshot(Jdbi jdbi) {
    return jdbi.withHandle(
        h ->
            new Snapshot(
                ids(h, "SELECT id::text FROM jobs"),
                ids(h, "SELECT id::text FROM workflows"),
                ids(h, "SELECT id::text FROM schedules"),
                ids(h, "SELECT id::text FROM api_keys"),
                count(h, "SELECT count(*) FROM job_dependencies"),
                count(h, "SELECT count(*) FROM workflow_steps"),
                ids(h, "SELECT job_id::text FROM idempotency_keys"),
                ids(h, "SELECT job_id::text FROM schedule_occurrences WHERE job_id IS NOT NULL"),
                h.createQuery("SELECT name, active, quota_version FROM namespaces")
                    .reduceRows(
                        new HashMap<String, NamespaceRow>(),
                        (map, row) -> {
                          map.put(
                              row.getColumn("name", String.class),
                              new NamespaceRow(
                                  row.getColumn("active", Boolean.class),
                                  row.getColumn("quota_version", Long.class)));
                          return map;
                        })));
  }

  /** Each line is one way the database differs from what the accepted requests wrote. */
  List<String> differences(Snapshot before, Snapshot after) {
    List<String> out = new java.util.ArrayList<>();
    compare("jobs", union(before.jobs(), jobs), after.jobs(), out);
    compare("workflows", union(before.workflows(), workflows), after.workflows(), out);
    Set<String> liveSchedules = union(before.schedules(), schedules);
    liveSchedules.removeAll(deletedSchedules);
    compare("schedules", liveSchedules, after.schedules(), out);
    compare("api_keys", union(before.keys(), keys), after.keys(), out);
    long edges = before.edges() + edgesByJob.values().stream().mapToLong(Integer::longValue).sum();
    if (after.edges() != edges) {
      out.add("job_dependencies: " + after.edges() + " rows, expected " + edges);
    }
    long steps =
        before.steps() + stepsByWorkflow.values().stream().mapToLong(Integer::longValue).sum();
    if (after.steps() != steps) {
      out.add("workflow_steps: " + after.steps() + " rows, expected " + steps);
    }
    namespaces(before, after, out);
    for (String job : after.idempotencyKeyJobs()) {
      if (!after.jobs().contains(job)) {
        out.add("idempotency_keys: a key names job " + job + ", which is not stored");
      }
    }
    for (String job : after.occurrenceJobs()) {
      if (!after.jobs().contains(job)) {
        out.add("schedule_occurrences: an occurrence names job " + job + ", which is not stored");
      }
    }
    return out;
  }

  /**
   * Namespaces: those there before, those created by a 2xx, and the one the corpus names in its
   * header (whose row the API creates on first use); each row's quota changed once per 2xx that
   * replaced it, and active as the last 2xx that switched it left it.
   */
  private void namespaces(Snapshot before, Snapshot after, List<String> out) {
    Set<String> expected = union(before.namespaces().keySet(), namespaces);
    Set<String> actual = new HashSet<>(after.namespaces().keySet());
    if (!expected.contains(Corpus.OTHER_NAMESPACE)) {
      actual.remove(Corpus.OTHER_NAMESPACE);
    }
    compare("namespaces", expected, actual, out);
    after
        .namespaces()
        .forEach(
            (name, row) -> {
              NamespaceRow was = before.namespaces().getOrDefault(name, new NamespaceRow(true, 1));
              long version = was.quotaVersion() + quotaChanges.getOrDefault(name, 0);
              if (row.quotaVersion() != version) {
                out.add(
                    "namespaces: "
                        + name
                        + " has quota_version "
                        + row.quotaVersion()
                        + ", expected "
                        + version);
              }
              boolean active = lastActive.getOrDefault(name, was.active());
              if (row.active() != active) {
                out.add(
                    "namespaces: " + name + " is active=" + row.active() + ", expected " + active);
              }
            });
  }

  private static void compare(
      String table, Set<String> expected, Set<String> actual, List<String> out) {
    Set<String> extra = new HashSet<>(actual);
    extra.removeAll(expected);
    Set<String> missing = new HashSet<>(expected);
    missing.removeAll(actual);
    if (!extra.isEmpty()) {
      out.add(table + ": rows no accepted request created: " + extra);
    }
    if (!missing.isEmpty()) {
      out.add(table + ": rows accepted requests created are missing: " + missing);
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  private static Set<String> ids(org.jdbi.v3.core.Handle h, String sql) {
    return new HashSet<>(h.createQuery(sql).mapTo(String.class).list());
  }

  private static long count(org.jdbi.v3.core.Handle h, String sql) {
    return h.createQuery(sql).mapTo(Long.class).one();
  }
}
