package io.punctual.store;

import io.punctual.common.json.Json;
import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.model.Upstream;
import io.punctual.store.sql.SqlFiles;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Stores new jobs: their ids and partitions, their idempotency keys, their rows (in their initial
 * state, PENDING or BLOCKED) and the edges of those that wait for other jobs. The SQL is in {@code
 * JobSubmissions/*.sql} beside this class.
 */
public final class JobSubmissions {
  private static final SqlFiles SQL = new SqlFiles(JobSubmissions.class);

  private final Jdbi jdbi;
  private final PartitionManager partitions;
  private final Clock clock;
  private final DependencyResolver dependencies = new DependencyResolver();

  public JobSubmissions(Jdbi jdbi, PartitionManager partitions, Clock clock) {
    this.jdbi = jdbi;
    this.partitions = partitions;
    this.clock = clock;
  }

  Jdbi jdbi() {
    return jdbi;
  }

  Clock clock() {
    return clock;
  }

  PartitionManager partitions() {
    return partitions;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** A stored job and whether this call created it (false: an idempotent repeat). */
  public record Submitted(Job job, boolean created) {}

  /**
   * Stores jobs in one transaction, in order. A job whose idempotency key already exists with the
   * same request hash yields the existing job ({@code created=false}); with a different hash the
   * whole call is rolled back with {@link IdempotencyConflictException}. A job that waits for other
   * jobs ({@link JobLinks#upstream()}) is stored BLOCKED with its edges, and judged at once: it is
   * PENDING or SKIPPED on return if what it waits for had already ended. A stored job it names that
   * does not exist in its namespace rolls the call back with {@link UnknownUpstreamException}.
   */
  public List<Submitted> submit(List<NewJob> jobs) {
    Instant now = clock.instant();
    List<UUID> ids = prepare(jobs, now);
    return partitions.retryingDropped(
        ids,
        () ->
            DeadlockRetry.run(
                "submit", () -> jdbi.inTransaction(h -> submitIn(h, jobs, ids, now, false))));
  }

  /**
   * {@link #submit} inside a transaction the caller holds on {@code connection} (auto-commit off):
   * the rows, idempotency keys and edges are written in it and commit or roll back with it; the
   * caller commits. The partitions the jobs need are made sure of first, on the store's own
   * connections (DDL never runs in the caller's transaction). Neither a deadlock nor a dropped
   * partition is retried here, since the transaction is not this method's to run again: the
   * exception reaches the caller, whose transaction is then to be rolled back.
   *
   * @throws IllegalStateException when the connection is in auto-commit mode
   * @throws IdempotencyConflictException a key already used with another request
   * @throws UnknownUpstreamException a job waits for one that is not in its namespace
   */
  public List<Submitted> submitIn(Connection connection, List<NewJob> jobs) {
    try (Handle h = CallerTransaction.open(connection)) {
      Instant now = clock.instant();
      requireNoPartitionWait(h, jobs, now);
      List<UUID> ids = prepare(jobs, now);
      return submitIn(h, jobs, ids, now, false);
    }
  }

  /**
   * Refuses, before anything is written, jobs of a day whose partition does not exist yet when the
   * caller's transaction has written jobs already: the partition, created on another connection,
   * would wait for that transaction's lock on {@code jobs}, which waits for this call: a hang no
   * deadlock detector sees.
   */
  void requireNoPartitionWait(Handle h, List<NewJob> jobs, Instant now) {
    Boolean holdsJobs = null;
    for (NewJob job : jobs) {
      Instant scheduledAt = job.runAt().isAfter(now) ? job.runAt() : now;
      if (partitions.knows(scheduledAt)) {
        continue;
      }
      if (holdsJobs == null) {
        holdsJobs = h.createQuery(sql("holdsJobs")).mapTo(Boolean.class).one();
      }
      if (!holdsJobs) {
        return;
      }
      LocalDate day = LocalDate.ofInstant(scheduledAt, ZoneOffset.UTC);
      boolean exists =
          h.createQuery(sql("partitionExists")).bind("day", day).mapTo(Boolean.class).one();
      if (!exists) {
        throw new IllegalStateException(
            "a job due "
                + day
                + " needs a new daily partition, which cannot be created while this transaction"
                + " holds jobs it wrote: submit jobs due that far ahead first in the transaction,"
                + " or all in one call");
      }
    }
  }

  /**
   * New ids for jobs about to be stored, and the partitions they go in (created outside the
   * transaction that stores them: partition creation takes a lock of its own).
   */
  List<UUID> prepare(List<NewJob> jobs, Instant now) {
    List<UUID> ids = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      ids.add(newId(job, now));
    }
    return ids;
  }

  /**
   * The id of {@code job} stored at {@code now} (scheduled at max(runAt, now), as {@link #submit}
   * does), its daily partition made sure of. Call it before the transaction that inserts the job
   * with {@link #insertPending}: partition DDL never runs inside one.
   */
  public UUID newId(NewJob job, Instant now) {
    Instant scheduledAt = job.runAt().isAfter(now) ? job.runAt() : now;
    UUID id = JobId.forScheduledTime(scheduledAt);
    partitions.ensureCovers(JobId.scheduledAt(id));
    return id;
  }

  /**
   * Inserts new PENDING jobs inside the caller's transaction, for stores that write jobs together
   * with rows of their own (the planner: a schedule's occurrences and its next fire time), all in
   * one statement (insertMany.sql). The ids come from {@link #newId}; idempotency keys are not
   * handled here (use {@link #submit}).
   */
  public void insertPending(Handle h, List<NewJob> jobs, List<UUID> ids, Instant now) {
    if (jobs.size() != ids.size()) {
      throw new IllegalArgumentException("one id per job");
    }
    List<Row> rows = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      NewJob job = jobs.get(i);
      if (job.idempotencyKey() != null) {
        throw new IllegalArgumentException("insert does not reserve idempotency keys; use submit");
      }
      if (job.links().waits()) {
        throw new IllegalArgumentException("insert stores PENDING jobs only; use submit");
      }
      rows.add(new Row(job, ids.get(i), null));
    }
    insertRows(h, rows, now, false);
  }

  /**
   * {@link #submit} inside a transaction the caller holds, with ids from {@link #prepare}. With
   * {@code sameKeyRepeats}, a job whose idempotency key (and request) is that of an earlier job of
   * the same call is an idempotent repeat of it, not a conflict (follow-ups of several handlers
   * finished together).
   */
  List<Submitted> submitIn(
      Handle h, List<NewJob> jobs, List<UUID> ids, Instant now, boolean sameKeyRepeats) {
    UpstreamGraph.requireAcyclic(jobs);
    Map<Integer, UUID> existingByIndex = reserveIdempotencyKeys(h, jobs, ids, now, sameKeyRepeats);
    List<UUID> actual = new ArrayList<>(ids);
    existingByIndex.forEach(actual::set);
    List<DependencyResolver.NewEdge> edges = edgesOf(h, jobs, actual, existingByIndex);
    List<Row> toInsert = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      if (!existingByIndex.containsKey(i)) {
        toInsert.add(
            new Row(jobs.get(i), ids.get(i), upstreamId(jobs.get(i).links().parent(), actual)));
      }
    }
    Map<UUID, Job> byId = new HashMap<>();
    Set<UUID> wanted = new HashSet<>(existingByIndex.values());
    if (!toInsert.isEmpty() && edges.isEmpty()) {
      // Jobs that wait for nothing: RETURNING * hands the rows back, no second statement to read
      // them.
      for (Job job : insertRows(h, toInsert, now, true)) {
        byId.put(job.id(), job);
      }
    } else if (!toInsert.isEmpty()) {
      // Jobs that wait are judged after their INSERT, which may change their rows: read them then.
      insertRows(h, toInsert, now, false);
      toInsert.forEach(r -> wanted.add(r.id()));
    }
    dependencies.insertEdges(h, edges);
    dependencies.judgeNew(h, mayBeReadyNow(jobs, existingByIndex, ids), now);
    for (Job job : JobQueries.findMany(h, wanted)) {
      byId.put(job.id(), job);
    }
    List<Submitted> out = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      UUID id = actual.get(i);
      Job job = byId.get(id);
      if (job == null) {
        throw new IllegalStateException("job " + id + " vanished during submit");
      }
      out.add(new Submitted(job, !existingByIndex.containsKey(i)));
    }
    return out;
  }

  private static UUID upstreamId(Upstream u, List<UUID> actual) {
    if (u == null) {
      return null;
    }
    return u.inBatch() ? actual.get(u.index()) : u.jobId();
  }

  /**
   * The edges of the jobs being inserted (not of idempotent repeats, which have theirs), after
   * share-locking the stored jobs they wait for and checking each one named by id exists in the
   * job's namespace. A job of this call that turned out to be an idempotent repeat is a stored job
   * too, and is locked the same way: without the lock it could end between this transaction's
   * judgement and its commit, before the edge to it is visible, and the job waiting for it would
   * stay BLOCKED.
   */
  private List<DependencyResolver.NewEdge> edgesOf(
      Handle h, List<NewJob> jobs, List<UUID> actual, Map<Integer, UUID> existingByIndex) {
    Set<UUID> storedIds = new HashSet<>();
    for (int i = 0; i < jobs.size(); i++) {
      if (existingByIndex.containsKey(i)) {
        continue;
      }
      for (Upstream u : jobs.get(i).links().upstream()) {
        if (!u.inBatch()) {
          storedIds.add(u.jobId());
        } else if (existingByIndex.containsKey(u.index())) {
          storedIds.add(existingByIndex.get(u.index()));
        }
      }
    }
    Map<UUID, DependencyResolver.StoredUpstream> stored = dependencies.lockStored(h, storedIds);
    List<DependencyResolver.NewEdge> edges = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      if (existingByIndex.containsKey(i)) {
        continue;
      }
      NewJob job = jobs.get(i);
      for (Upstream u : job.links().upstream()) {
        if (!u.inBatch()) {
          DependencyResolver.StoredUpstream found = stored.get(u.jobId());
          if (found == null || !found.namespace().equals(job.namespace())) {
            throw new UnknownUpstreamException(i, u.jobId());
          }
        }
        edges.add(
            new DependencyResolver.NewEdge(
                actual.get(i), upstreamId(u, actual), job.namespace(), u.condition(), u.parent()));
      }
    }
    return edges;
  }

  /**
   * The new BLOCKED jobs whose upstream may have ended already: those naming a stored job or an
   * idempotent repeat. The others wait for jobs created in this very call, which cannot have ended.
   */
  private static List<UUID> mayBeReadyNow(
      List<NewJob> jobs, Map<Integer, UUID> existingByIndex, List<UUID> ids) {
    List<UUID> out = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      if (existingByIndex.containsKey(i)) {
        continue;
      }
      for (Upstream u : jobs.get(i).links().upstream()) {
        if (!u.inBatch() || existingByIndex.containsKey(u.index())) {
          out.add(ids.get(i));
          break;
        }
      }
    }
    return out;
  }

  /** A job to insert, its id, and its parent edge's job (or null). */
  private record Row(NewJob job, UUID id, UUID parentId) {}

  /**
   * Inserts rows with insertMany.sql, each in its initial state (BLOCKED when it waits for other
   * jobs, else PENDING: the statement tells them apart by the count of open edges). Returns the
   * rows inserted when {@code returning}, else an empty list.
   */
  private static List<Job> insertRows(Handle h, List<Row> rows, Instant now, boolean returning) {
    if (rows.isEmpty()) {
      return List.of();
    }
    // Jobs of one schedule share their payload, backoff and tags: write each distinct one once.
    Map<Object, String> written = new HashMap<>();
    var insert =
        UnnestColumns.of(rows)
            .uuids("ids", Row::id)
            .longs("scheduledMs", r -> JobId.scheduledAt(r.id()).toEpochMilli())
            .texts("namespaces", r -> r.job().namespace())
            .texts("types", r -> r.job().type())
            .texts("payloads", r -> written.computeIfAbsent(r.job().payload(), Json::write))
            .ints("priorities", r -> r.job().priority().rank())
            .millis("runMs", r -> r.job().runAt())
            .ints("maxAttempts", r -> r.job().maxAttempts())
            .texts("backoffs", r -> written.computeIfAbsent(r.job().backoff(), Json::write))
            .longs(
                "timeoutMs", r -> r.job().timeout() == null ? null : r.job().timeout().toMillis())
            .texts("idempotencyKeys", r -> r.job().idempotencyKey())
            .texts("tags", r -> written.computeIfAbsent(r.job().tags(), Json::write))
            .texts(
                "callbacks",
                r -> r.job().callback() == null ? null : Json.write(r.job().callback()))
            .uuids("scheduleIds", r -> r.job().links().scheduleId())
            .uuids("workflowIds", r -> r.job().links().workflowId())
            .millis("occurrenceMs", r -> r.job().links().occurrenceAt())
            .uuids("parentIds", Row::parentId)
            .texts("runConditions", r -> runCondition(r.job()))
            .ints("waitingFor", r -> waitingFor(r.job()))
            .texts("concurrencyKeys", r -> r.job().concurrencyKey())
            .texts("traceparents", r -> r.job().traceparent())
            .bind(h.createUpdate(sql("insertMany")))
            .bind("now", now);
    if (!returning) {
      insert.execute();
      return List.of();
    }
    return insert.executeAndReturnGeneratedKeys("*").map(JobRowMapper.INSTANCE).list();
  }

  private static String runCondition(NewJob job) {
    Upstream parent = job.links().parent();
    return parent == null ? null : parent.condition().wireName();
  }

  /**
   * The count of open edges a new job starts with: all of its edges (null for a job that waits for
   * nothing, which insertMany.sql stores PENDING). A job some of whose upstream jobs have ended
   * already is judged in the same transaction, which counts again.
   */
  private static Integer waitingFor(NewJob job) {
    return job.links().waits() ? job.links().upstream().size() : null;
  }

  /**
   * Returns, for each job whose key was already taken by an identical request, that job's id; with
   * {@code sameKeyRepeats}, also for each job whose key and request are those of an earlier job of
   * the call (that job's id, or the id of the job it repeats in turn).
   */
  private Map<Integer, UUID> reserveIdempotencyKeys(
      Handle h, List<NewJob> jobs, List<UUID> ids, Instant now, boolean sameKeyRepeats) {
    Map<String, Map<String, Integer>> byNamespace = new LinkedHashMap<>();
    Map<Integer, Integer> repeatsOfEarlier = new LinkedHashMap<>();
    for (int i = 0; i < jobs.size(); i++) {
      NewJob job = jobs.get(i);
      if (job.idempotencyKey() == null) {
        continue;
      }
      Map<String, Integer> keys =
          byNamespace.computeIfAbsent(job.namespace(), n -> new HashMap<>());
      Integer earlier = keys.putIfAbsent(job.idempotencyKey(), i);
      if (earlier == null) {
        continue;
      }
      if (!sameKeyRepeats) {
        throw new IdempotencyConflictException(
            i, job.idempotencyKey(), "the same idempotencyKey appears twice in this request");
      }
      if (!Objects.equals(jobs.get(earlier).requestHash(), job.requestHash())) {
        throw new IdempotencyConflictException(
            i, job.idempotencyKey(), "the same idempotencyKey appears twice with another request");
      }
      repeatsOfEarlier.put(i, earlier);
    }
    Map<Integer, UUID> existing = reserveDistinctKeys(h, jobs, ids, now, byNamespace);
    repeatsOfEarlier.forEach(
        (i, earlier) -> existing.put(i, existing.getOrDefault(earlier, ids.get(earlier))));
    return existing;
  }

  /** {@link #reserveIdempotencyKeys} for keys each held by one job of the call. */
  private Map<Integer, UUID> reserveDistinctKeys(
      Handle h,
      List<NewJob> jobs,
      List<UUID> ids,
      Instant now,
      Map<String, Map<String, Integer>> byNamespace) {
    Map<Integer, UUID> existing = new HashMap<>();
    for (var entry : byNamespace.entrySet()) {
      String namespace = entry.getKey();
      Map<String, Integer> keys = entry.getValue();
      List<String> keyList = new ArrayList<>(keys.keySet());
      UUID[] jobIds = keyList.stream().map(k -> ids.get(keys.get(k))).toArray(UUID[]::new);
      String[] hashes =
          keyList.stream().map(k -> jobs.get(keys.get(k)).requestHash()).toArray(String[]::new);
      Set<String> reserved =
          new HashSet<>(
              h.createQuery(sql("reserveKeys"))
                  .bind("namespace", namespace)
                  .bind("keys", keyList.toArray(String[]::new))
                  .bind("jobIds", jobIds)
                  .bind("hashes", hashes)
                  .bind("now", now)
                  .mapTo(String.class)
                  .list());
      List<String> taken = keyList.stream().filter(k -> !reserved.contains(k)).toList();
      if (taken.isEmpty()) {
        continue;
      }
      h.createQuery(sql("findKeys"))
          .bind("namespace", namespace)
          .bind("keys", taken.toArray(String[]::new))
          .map(
              (rs, ctx) -> {
                String key = rs.getString("key");
                int index = keys.get(key);
                if (!rs.getString("request_hash").equals(jobs.get(index).requestHash())) {
                  throw new IdempotencyConflictException(
                      index, key, "idempotencyKey was already used with a different request");
                }
                existing.put(index, rs.getObject("job_id", UUID.class));
                return key;
              })
          .list();
    }
    return existing;
  }
}
