package io.punctual.common.store;

import io.punctual.common.job.Completion;
import io.punctual.common.job.Execution;
import io.punctual.common.job.ExecutionStatus;
import io.punctual.common.job.Job;
import io.punctual.common.job.JobId;
import io.punctual.common.job.JobLinks;
import io.punctual.common.job.JobState;
import io.punctual.common.job.NewJob;
import io.punctual.common.job.Priority;
import io.punctual.common.job.RunCondition;
import io.punctual.common.job.Upstream;
import io.punctual.common.json.Json;
import io.punctual.common.sql.SqlFiles;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * Every read and every state transition of jobs, each transition one guarded SQL statement (see
 * {@link JobState}). Statements that touch many jobs take arrays, so a batch of claims, completions
 * or heartbeats costs one round trip. The SQL is in {@code JobStore/*.sql} beside this class.
 */
public final class JobStore {
  private static final SqlFiles SQL = new SqlFiles(JobStore.class);

  private final Jdbi jdbi;
  private final PartitionManager partitions;
  private final Clock clock;
  private final DependencyResolver dependencies = new DependencyResolver();
  private final SpawnedSteps spawnedSteps = new SpawnedSteps();

  public JobStore(Jdbi jdbi, PartitionManager partitions, Clock clock) {
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

  private static String sql(String name) {
    return SQL.get(name);
  }

  /**
   * Runs a statement that works on a batch of job keys (claim, heartbeat, finish) in a transaction
   * whose planner may neither scan a partition sequentially nor loop over one side of a join once
   * per row of the other: until a busy partition has been analyzed its guesses can make a batch
   * cost O(partition) or O(batch x running jobs) instead of O(batch) (keyLookupsOnly.sql).
   */
  private <T> T byKeys(org.jdbi.v3.core.HandleCallback<T, RuntimeException> statement) {
    return jdbi.inTransaction(
        h -> {
          h.createQuery(sql("keyLookupsOnly")).mapTo(String.class).one();
          return statement.withHandle(h);
        });
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
   * New ids for jobs about to be stored, and the partitions they go in (created outside the
   * transaction that stores them: partition creation takes a lock of its own).
   */
  List<UUID> prepare(List<NewJob> jobs, Instant now) {
    List<UUID> ids = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      Instant scheduledAt = job.runAt().isAfter(now) ? job.runAt() : now;
      UUID id = JobId.forScheduledTime(scheduledAt);
      partitions.ensureCovers(JobId.scheduledAt(id));
      ids.add(id);
    }
    return ids;
  }

  PartitionManager partitions() {
    return partitions;
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
    List<NewJob> toInsert = new ArrayList<>();
    List<UUID> inserted = new ArrayList<>();
    List<UUID> parents = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      if (existingByIndex.containsKey(i)) {
        continue;
      }
      toInsert.add(jobs.get(i));
      inserted.add(ids.get(i));
      parents.add(upstreamId(jobs.get(i).links().parent(), actual));
    }
    Map<UUID, Job> byId = new HashMap<>();
    Set<UUID> wanted = new HashSet<>(existingByIndex.values());
    if (inserted.size() == 1 && edges.isEmpty()) {
      // One job that waits for nothing (POST /jobs): RETURNING * hands the row back, no second
      // statement to read it. Not for a job that waits: judging it may change the row after the
      // INSERT.
      PreparedBatch batch = h.prepareBatch(sql("insert"));
      bindInsert(batch, toInsert.get(0), inserted.get(0), parents.get(0), now);
      for (Job job : batch.executePreparedBatch("*").map(JobRowMapper.INSTANCE).list()) {
        byId.put(job.id(), job);
      }
    } else if (!inserted.isEmpty() && edges.isEmpty()) {
      // More, waiting for nothing: one statement with an array per column (insertMany.sql),
      // whose RETURNING * hands the rows back.
      for (Job job : insertRows(h, toInsert, inserted, parents, now, true)) {
        byId.put(job.id(), job);
      }
    } else if (!inserted.isEmpty()) {
      // Jobs that wait are judged after their INSERT, which may change their rows: read them then.
      insertRows(h, toInsert, inserted, parents, now, false);
      wanted.addAll(inserted);
    }
    dependencies.insertEdges(h, edges);
    dependencies.judgeNew(h, mayBeReadyNow(jobs, existingByIndex, ids), now);
    for (Job job : findMany(h, wanted)) {
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

  /**
   * The count of open edges a new job starts with: all of its edges (null for a job that waits for
   * nothing). A job some of whose upstream jobs have ended already is judged in the same
   * transaction, which counts again.
   */
  private static Integer waitingFor(NewJob job) {
    return job.links().waits() ? job.links().upstream().size() : null;
  }

  /** Binds one row of insert.sql; {@code parentId} is the parent edge's job, or null. */
  private static void bindInsert(
      PreparedBatch batch, NewJob job, UUID id, UUID parentId, Instant now) {
    Upstream parent = job.links().parent();
    batch
        .bind("id", id)
        .bind("scheduledAt", JobId.scheduledAt(id))
        .bind("namespace", job.namespace())
        .bind("type", job.type())
        .bind("payload", Json.write(job.payload()))
        .bind("priority", (short) job.priority().ordinal())
        .bind("status", JobState.initial(job.links().waits()).name())
        .bind("runAt", job.runAt())
        .bind("maxAttempts", job.maxAttempts())
        .bind("backoff", Json.write(job.backoff()))
        .bind("timeoutMs", job.timeout() == null ? null : job.timeout().toMillis())
        .bind("idempotencyKey", job.idempotencyKey())
        .bind("tags", job.tags().toArray(String[]::new))
        .bind("callback", job.callback() == null ? null : Json.write(job.callback()))
        .bind("now", now)
        .bind("scheduleId", job.links().scheduleId())
        .bind("workflowId", job.links().workflowId())
        .bind("occurrenceAt", job.links().occurrenceAt())
        .bind("parentId", parentId)
        .bind("runCondition", parent == null ? null : parent.condition().wireName())
        .bind("waitingFor", waitingFor(job))
        .add();
  }

  /**
   * The id of {@code job} stored at {@code now} (scheduled at max(runAt, now), as {@link #submit}
   * does), its daily partition made sure of. Call it before the transaction that inserts the job
   * with {@link #insert(Handle, List, List, Instant)}: partition DDL never runs inside one.
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
  public void insert(Handle h, List<NewJob> jobs, List<UUID> ids, Instant now) {
    if (jobs.size() != ids.size()) {
      throw new IllegalArgumentException("one id per job");
    }
    for (NewJob job : jobs) {
      if (job.idempotencyKey() != null) {
        throw new IllegalArgumentException("insert does not reserve idempotency keys; use submit");
      }
      if (job.links().waits()) {
        throw new IllegalArgumentException("insert stores PENDING jobs only; use submit");
      }
    }
    insertRows(h, jobs, ids, Collections.nCopies(jobs.size(), null), now, false);
  }

  /**
   * Inserts rows with insertMany.sql; {@code parentIds}: each job's parent edge's job, or null.
   * Returns the rows inserted when {@code returning}, else an empty list.
   */
  private static List<Job> insertRows(
      Handle h,
      List<NewJob> jobs,
      List<UUID> ids,
      List<UUID> parentIds,
      Instant now,
      boolean returning) {
    int n = jobs.size();
    if (n == 0) {
      return List.of();
    }
    Long[] scheduledMs = new Long[n];
    String[] namespaces = new String[n];
    String[] types = new String[n];
    String[] payloads = new String[n];
    Integer[] priorities = new Integer[n];
    Long[] runMs = new Long[n];
    Integer[] maxAttempts = new Integer[n];
    String[] backoffs = new String[n];
    Long[] timeoutMs = new Long[n];
    String[] tags = new String[n];
    String[] callbacks = new String[n];
    UUID[] scheduleIds = new UUID[n];
    UUID[] workflowIds = new UUID[n];
    Long[] occurrenceMs = new Long[n];
    String[] statuses = new String[n];
    String[] idempotencyKeys = new String[n];
    UUID[] parents = parentIds.toArray(UUID[]::new);
    String[] runConditions = new String[n];
    Integer[] waitingFor = new Integer[n];
    // Jobs of one schedule share their payload, backoff and tags: write each distinct one once.
    Map<Object, String> written = new HashMap<>();
    for (int i = 0; i < n; i++) {
      NewJob job = jobs.get(i);
      scheduledMs[i] = JobId.scheduledAt(ids.get(i)).toEpochMilli();
      namespaces[i] = job.namespace();
      types[i] = job.type();
      payloads[i] = written.computeIfAbsent(job.payload(), Json::write);
      priorities[i] = job.priority().ordinal();
      runMs[i] = job.runAt().toEpochMilli();
      maxAttempts[i] = job.maxAttempts();
      backoffs[i] = written.computeIfAbsent(job.backoff(), Json::write);
      timeoutMs[i] = job.timeout() == null ? null : job.timeout().toMillis();
      tags[i] = written.computeIfAbsent(job.tags(), Json::write);
      callbacks[i] = job.callback() == null ? null : Json.write(job.callback());
      scheduleIds[i] = job.links().scheduleId();
      workflowIds[i] = job.links().workflowId();
      occurrenceMs[i] =
          job.links().occurrenceAt() == null ? null : job.links().occurrenceAt().toEpochMilli();
      statuses[i] = JobState.initial(job.links().waits()).name();
      idempotencyKeys[i] = job.idempotencyKey();
      Upstream parent = job.links().parent();
      runConditions[i] = parent == null ? null : parent.condition().wireName();
      waitingFor[i] = waitingFor(job);
    }
    var insert =
        h.createUpdate(sql("insertMany"))
            .bind("ids", ids.toArray(UUID[]::new))
            .bind("scheduledMs", scheduledMs)
            .bind("namespaces", namespaces)
            .bind("types", types)
            .bind("payloads", payloads)
            .bind("priorities", priorities)
            .bind("runMs", runMs)
            .bind("maxAttempts", maxAttempts)
            .bind("backoffs", backoffs)
            .bind("timeoutMs", timeoutMs)
            .bind("tags", tags)
            .bind("callbacks", callbacks)
            .bind("scheduleIds", scheduleIds)
            .bind("workflowIds", workflowIds)
            .bind("occurrenceMs", occurrenceMs)
            .bind("statuses", statuses)
            .bind("idempotencyKeys", idempotencyKeys)
            .bind("parentIds", parents)
            .bind("runConditions", runConditions)
            .bind("waitingFor", waitingFor)
            .bind("now", now);
    if (!returning) {
      insert.execute();
      return List.of();
    }
    return insert.executeAndReturnGeneratedKeys("*").map(JobRowMapper.INSTANCE).list();
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

  /**
   * Confirms claims made in Redis: each job still PENDING becomes RUNNING with attempt + 1 and gets
   * an open execution row. Returns the jobs this worker now runs.
   */
  public List<Job> claim(Collection<UUID> ids, String workerId) {
    if (ids.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    return byKeys(
        h ->
            h.createQuery(sql("claim"))
                .bind("ids", ids.toArray(UUID[]::new))
                .bindMap(scheduledBounds(ids))
                .bind("workerId", workerId)
                .bind("now", now)
                .map(JobRowMapper.INSTANCE)
                .list());
  }

  /**
   * What a step that ends jobs changed: the ids it applied to, and the jobs that were waiting for
   * them and became PENDING in the same transaction (the caller puts those due soon into Redis).
   * {@code refused}: for a finish, the applied completions recorded as FAILED instead of SUCCEEDED
   * because the follow-up jobs they spawned were refused, with the error recorded.
   */
  public record Ended(Set<UUID> applied, List<QueueEntry> released, Map<UUID, String> refused) {
    public static final Ended NONE = new Ended(Set.of(), List.of());

    public Ended {
      refused = Map.copyOf(refused);
    }

    public Ended(Set<UUID> applied, List<QueueEntry> released) {
      this(applied, released, Map.of());
    }
  }

  /** {@link #finish(List, String)} recording the job row's worker as each attempt's worker. */
  public Ended finish(List<Completion> completions) {
    return finish(completions, null);
  }

  /** What the error of an attempt whose follow-ups were refused starts with. */
  public static final String FOLLOW_UPS_REFUSED = "follow-up jobs refused: ";

  /**
   * Applies finished attempts and records each in {@code job_executions}; {@link Ended#applied()}
   * holds the ids whose job row took the new state. A completion whose attempt is no longer current
   * (the job was cancelled, rescued or re-run) is refused, but its attempt is still recorded. In
   * the same transaction, an applied success stores the jobs its handler spawned (children of the
   * job, on_success), and the jobs waiting for the jobs that ended are judged: {@link
   * Ended#released()} holds those that became PENDING.
   *
   * <p>Follow-ups the store refuses fail the attempt that spawned them, not the batch: a success
   * whose follow-ups are wrong on their own ({@link Spawn#problem}) is recorded as a non-retryable
   * failure whose error says why ({@link #FOLLOW_UPS_REFUSED}); when storing the follow-ups of a
   * batch is refused by the database (a key already used with another request, a job to wait for
   * that does not exist...), the batch is rolled back and its completions are finished one at a
   * time, each in its own transaction, so that only the one at fault is recorded as failed, still
   * fenced by its attempt number. Two successes of one batch spawning the same idempotency key with
   * the same request store one job: the second is an idempotent repeat of the first.
   *
   * @param workerId the worker that ran these attempts (null: the worker on the job row)
   */
  public Ended finish(List<Completion> completions, String workerId) {
    if (completions.isEmpty()) {
      return Ended.NONE;
    }
    Map<UUID, String> refused = new HashMap<>();
    List<Completion> checked = new ArrayList<>(completions.size());
    for (Completion c : completions) {
      String problem = Spawn.problem(c);
      checked.add(problem == null ? c : refuse(c, problem, refused));
    }
    Ended ended;
    try {
      ended = finishTogether(checked, workerId);
    } catch (FollowUpsRefusedException e) {
      ended = finishOneByOne(checked, workerId, refused);
    }
    refused.keySet().retainAll(ended.applied());
    return new Ended(ended.applied(), ended.released(), refused);
  }

  private static Completion refuse(Completion c, String why, Map<UUID, String> refused) {
    Completion failed = c.failed(FOLLOW_UPS_REFUSED + why);
    refused.put(c.jobId(), failed.error());
    return failed;
  }

  /**
   * {@link #finish} after the store refused the follow-ups of a batch: each completion in a
   * transaction of its own, and one whose follow-ups are refused again is recorded as failed. (A
   * failure of the database itself midway leaves the completions before it recorded; the batch
   * written again later finds them no longer current.)
   */
  private Ended finishOneByOne(
      List<Completion> completions, String workerId, Map<UUID, String> refused) {
    Set<UUID> applied = new HashSet<>();
    List<QueueEntry> released = new ArrayList<>();
    for (Completion c : completions) {
      Ended one;
      try {
        one = finishTogether(List.of(c), workerId);
      } catch (FollowUpsRefusedException e) {
        one = finishTogether(List.of(refuse(c, e.getMessage(), refused)), workerId);
      }
      applied.addAll(one.applied());
      released.addAll(one.released());
    }
    return new Ended(applied, released);
  }

  /** Finishes {@code completions} in one transaction, follow-ups and judgements included. */
  private Ended finishTogether(List<Completion> completions, String workerId) {
    int n = completions.size();
    UUID[] ids = new UUID[n];
    Long[] scheduled = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] nextStates = new String[n];
    Long[] nextRunAt = new Long[n];
    String[] execStatuses = new String[n];
    Long[] finishedAt = new Long[n];
    Long[] durations = new Long[n];
    String[] errors = new String[n];
    String[] stackTraces = new String[n];
    String[] results = new String[n];
    for (int i = 0; i < n; i++) {
      Completion c = completions.get(i);
      ids[i] = c.jobId();
      scheduled[i] = JobId.scheduledAt(c.jobId()).toEpochMilli();
      attempts[i] = c.attempt();
      nextStates[i] = c.nextState().name();
      nextRunAt[i] = c.nextRunAt() == null ? null : c.nextRunAt().toEpochMilli();
      execStatuses[i] = c.executionStatus().name();
      finishedAt[i] = c.finishedAt().toEpochMilli();
      durations[i] = c.durationMs();
      errors[i] = c.error();
      stackTraces[i] = c.stackTrace();
      results[i] = c.result() == null ? null : Json.write(c.result());
    }
    Instant now = clock.instant();
    Spawn spawn = Spawn.of(completions);
    List<UUID> spawnIds = prepare(spawn.jobs(), now);
    return DeadlockRetry.run(
        "finish",
        () ->
            byKeys(
                h -> {
                  Map<UUID, SpawnedSteps.SpawnerStep> spawnerSteps =
                      spawnedSteps.lock(h, new HashSet<>(spawn.parents()));
                  Set<UUID> applied =
                      finishStatement(
                          h,
                          ids,
                          scheduled,
                          attempts,
                          nextStates,
                          nextRunAt,
                          execStatuses,
                          finishedAt,
                          durations,
                          errors,
                          stackTraces,
                          results,
                          workerId,
                          now);
                  List<UUID> ended = new ArrayList<>();
                  for (Completion c : completions) {
                    if (c.nextState().isTerminal() && applied.contains(c.jobId())) {
                      ended.add(c.jobId());
                    }
                  }
                  // The jobs waiting for those that ended are judged before the follow-ups are
                  // stored: a follow-up is judged on all its edges when stored, so it must not
                  // also count the end of its spawner (or of another job ended here) again.
                  List<QueueEntry> released = dependencies.afterEnded(h, ended, now);
                  Spawn.Kept spawned = spawn.keepApplied(applied, spawnIds);
                  if (!spawned.jobs().isEmpty()) {
                    released.addAll(storeFollowUps(h, spawned, spawnerSteps, now));
                  }
                  return new Ended(applied, released);
                }));
  }

  /**
   * Stores follow-ups inside a finish's transaction, those of a workflow's step as steps of the
   * workflow ({@link SpawnedSteps}); returns those PENDING (once each). A refusal is thrown as
   * {@link FollowUpsRefusedException}, which rolls the transaction back.
   */
  private List<QueueEntry> storeFollowUps(
      Handle h, Spawn.Kept spawned, Map<UUID, SpawnedSteps.SpawnerStep> spawnerSteps, Instant now) {
    List<NewJob> jobs = new ArrayList<>(spawned.jobs().size());
    for (int i = 0; i < spawned.jobs().size(); i++) {
      NewJob job = spawned.jobs().get(i);
      SpawnedSteps.SpawnerStep step = spawnerSteps.get(spawned.parents().get(i));
      jobs.add(step == null ? job : job.withLinks(job.links().withWorkflowId(step.workflowId())));
    }
    Set<UUID> seen = new HashSet<>();
    List<QueueEntry> pending = new ArrayList<>();
    try {
      List<Submitted> stored = submitIn(h, jobs, spawned.ids(), now, true);
      List<SpawnedSteps.NewStep> steps = new ArrayList<>();
      for (int i = 0; i < stored.size(); i++) {
        Submitted s = stored.get(i);
        UUID spawner = spawned.parents().get(i);
        if (s.created() && spawnerSteps.containsKey(spawner)) {
          steps.add(
              new SpawnedSteps.NewStep(
                  spawnerSteps.get(spawner), spawner, spawned.indexes().get(i), s.job().id()));
        }
        if (seen.add(s.job().id())) {
          pending.addAll(queueEntryIfPending(s.job()));
        }
      }
      spawnedSteps.insert(h, steps);
    } catch (RuntimeException e) {
      throw FollowUpsRefusedException.of(e).orElseThrow(() -> e);
    }
    return pending;
  }

  /**
   * For stores that end jobs with statements of their own (the planner cancelling a schedule's
   * future jobs): judges, inside the caller's transaction, the jobs waiting for {@code ended};
   * returns those that became PENDING.
   */
  public List<QueueEntry> afterEnded(Handle h, Collection<UUID> ended, Instant now) {
    return dependencies.afterEnded(h, ended, now);
  }

  private static List<QueueEntry> queueEntryIfPending(Job job) {
    return job.status() == JobState.PENDING
        ? List.of(new QueueEntry(job.id(), job.namespace(), job.priority(), job.runAt()))
        : List.of();
  }

  private static Set<UUID> finishStatement(
      Handle h,
      UUID[] ids,
      Long[] scheduled,
      Integer[] attempts,
      String[] nextStates,
      Long[] nextRunAt,
      String[] execStatuses,
      Long[] finishedAt,
      Long[] durations,
      String[] errors,
      String[] stackTraces,
      String[] results,
      String workerId,
      Instant now) {
    return new HashSet<>(
        h.createQuery(sql("finish"))
            .bind("ids", ids)
            .bind("scheduledMs", scheduled)
            .bindMap(scheduledBounds(List.of(ids)))
            .bind("attempts", attempts)
            .bind("nextStates", nextStates)
            .bind("nextRunAtMs", nextRunAt)
            .bind("execStatuses", execStatuses)
            .bind("finishedAtMs", finishedAt)
            .bind("durationsMs", durations)
            .bind("errors", errors)
            .bind("stackTraces", stackTraces)
            .bind("results", results)
            .bind("workerId", workerId)
            .bind("now", now)
            .mapTo(UUID.class)
            .list());
  }

  /** A running attempt a worker holds. */
  public record Attempt(UUID jobId, int attempt) {}

  /** Records heartbeats; returns the attempts that are still current (others must stop). */
  public Set<UUID> heartbeat(Collection<Attempt> running) {
    if (running.isEmpty()) {
      return Set.of();
    }
    UUID[] ids = running.stream().map(Attempt::jobId).toArray(UUID[]::new);
    Integer[] attempts = running.stream().map(Attempt::attempt).toArray(Integer[]::new);
    Instant now = clock.instant();
    return byKeys(
        h ->
            new HashSet<>(
                h.createQuery(sql("heartbeat"))
                    .bind("ids", ids)
                    .bind("scheduledMs", scheduledMillis(List.of(ids)))
                    .bindMap(scheduledBounds(List.of(ids)))
                    .bind("attempts", attempts)
                    .bind("now", now)
                    .mapTo(UUID.class)
                    .list()));
  }

  /** The result of a cancel request. */
  public sealed interface CancelResult {
    /** Cancelled now; {@code released}: jobs waiting for it that became PENDING. */
    record Cancelled(Job job, JobState previous, List<QueueEntry> released)
        implements CancelResult {}

    record AlreadyFinal(Job job) implements CancelResult {}

    record NotFound() implements CancelResult {}
  }

  /**
   * BLOCKED, PENDING or RUNNING becomes CANCELLED (a running attempt learns it at its next
   * heartbeat), and the jobs waiting for it are judged in the same transaction.
   */
  public CancelResult cancel(String namespace, UUID id) {
    Instant now = clock.instant();
    return DeadlockRetry.run(
        "cancel", () -> jdbi.inTransaction(h -> cancelIn(h, namespace, id, now)));
  }

  private CancelResult cancelIn(Handle h, String namespace, UUID id, Instant now) {
    {
      {
        Optional<Job> before = find(h, namespace, id);
        if (before.isEmpty()) {
          return new CancelResult.NotFound();
        }
        Optional<Job> cancelled =
            h.createQuery(sql("cancel"))
                .bind("id", id)
                .bind("scheduledAt", JobId.scheduledAt(id))
                .bind("namespace", namespace)
                .bind("now", now)
                .map(JobRowMapper.INSTANCE)
                .findOne();
        if (cancelled.isPresent()) {
          return new CancelResult.Cancelled(
              cancelled.get(), before.get().status(), dependencies.afterEnded(h, List.of(id), now));
        }
        return new CancelResult.AlreadyFinal(find(h, namespace, id).orElseThrow());
      }
    }
  }

  public Optional<Job> find(String namespace, UUID id) {
    return jdbi.withHandle(h -> find(h, namespace, id));
  }

  private static Optional<Job> find(Handle h, String namespace, UUID id) {
    return h.createQuery(sql("find"))
        .bind("id", id)
        .bind("scheduledAt", JobId.scheduledAt(id))
        .bind("namespace", namespace)
        .map(JobRowMapper.INSTANCE)
        .findOne();
  }

  /**
   * The dependencies ({@code dependsOn}: the edges other than the parent's) of the jobs {@code ids}
   * of {@code namespace}, each as a stored {@link Upstream} (the job waited for, and on what
   * condition), in the order of those jobs' ids; a job without any maps to an empty list. One
   * statement, for reads that show them.
   */
  public Map<UUID, List<Upstream>> dependsOn(String namespace, Collection<UUID> ids) {
    return jdbi.withHandle(h -> dependsOn(h, namespace, ids));
  }

  static Map<UUID, List<Upstream>> dependsOn(Handle h, String namespace, Collection<UUID> ids) {
    Map<UUID, List<Upstream>> out = new HashMap<>();
    for (UUID id : ids) {
      out.put(id, new ArrayList<>());
    }
    if (ids.isEmpty()) {
      return out;
    }
    h.createQuery(sql("dependsOn"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bind("namespace", namespace)
        .map(
            (rs, ctx) -> {
              out.get(rs.getObject("job_id", UUID.class))
                  .add(
                      Upstream.stored(
                          rs.getObject("depends_on_id", UUID.class),
                          RunCondition.parse(rs.getString("condition")).orElseThrow()));
              return null;
            })
        .list();
    return out;
  }

  /** Jobs by id, in any namespace (used by workers and the reaper, not by the API). */
  public List<Job> findMany(Collection<UUID> ids) {
    return jdbi.withHandle(h -> findMany(h, ids));
  }

  private static List<Job> findMany(Handle h, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return h.createQuery(sql("findMany"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(scheduledBounds(ids))
        .map(JobRowMapper.INSTANCE)
        .list();
  }

  /** Filters for {@link #list}; null means "any". */
  public record JobQuery(
      String namespace,
      JobState status,
      String type,
      String tag,
      Instant from,
      Instant to,
      UUID cursor,
      int limit) {}

  /** A page of a list and the cursor for the next one (null at the end). */
  public record Page<T>(List<T> items, UUID nextCursor) {}

  /** Jobs newest-scheduled first, by keyset on the id. */
  public Page<Job> list(JobQuery q) {
    Instant from = q.from() == null ? Instant.EPOCH : q.from();
    Instant to = q.to() == null ? Instant.ofEpochMilli((1L << 48) - 1) : q.to();
    if (q.cursor() != null) {
      Instant cursorTime = JobId.scheduledAt(q.cursor()).plusMillis(1);
      if (cursorTime.isBefore(to)) {
        to = cursorTime;
      }
    }
    Instant fromBound = from;
    Instant toBound = to;
    List<Job> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(sql("list"))
                    .bind("namespace", q.namespace())
                    .bind("from", fromBound)
                    .bind("to", toBound)
                    .bind("status", q.status() == null ? null : q.status().name())
                    .bind("type", q.type())
                    .bind("tag", q.tag())
                    .bind("cursor", q.cursor())
                    .bind("limit", q.limit() + 1)
                    .map(JobRowMapper.INSTANCE)
                    .list());
    if (rows.size() > q.limit()) {
      List<Job> page = rows.subList(0, q.limit());
      return new Page<>(List.copyOf(page), page.get(page.size() - 1).id());
    }
    return new Page<>(rows, null);
  }

  public List<Execution> executions(String namespace, UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("executions"))
                .bind("id", id)
                .bind("scheduledAt", JobId.scheduledAt(id))
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) -> {
                      long duration = rs.getLong("duration_ms");
                      Long durationMs = rs.wasNull() ? null : duration;
                      return new Execution(
                          rs.getObject("job_id", UUID.class),
                          rs.getInt("attempt"),
                          rs.getString("worker_id"),
                          ExecutionStatus.valueOf(rs.getString("status")),
                          JobRowMapper.instant(rs, "started_at"),
                          JobRowMapper.instant(rs, "finished_at"),
                          durationMs,
                          rs.getString("error"),
                          rs.getString("stack_trace"),
                          Json.readTree(rs.getString("result")));
                    })
                .list());
  }

  /**
   * Running attempts whose worker has not reported in since {@code staleBefore}, oldest heartbeat
   * first (then by id), after the cursor {@code (afterHeartbeat, afterId)}: start with {@link
   * Instant#EPOCH} and the nil UUID, then pass the last job of the previous page.
   */
  public List<Job> staleRunning(
      Instant staleBefore, Instant afterHeartbeat, UUID afterId, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("staleRunning"))
                .bind("staleBefore", staleBefore)
                .bind("afterHeartbeat", afterHeartbeat)
                .bind("afterId", afterId)
                .bind("limit", limit)
                .map(JobRowMapper.INSTANCE)
                .list());
  }

  /**
   * What the reaper decided for a lost attempt: back to PENDING at {@code nextRunAt}, or FAILED
   * (then {@code nextRunAt} is null).
   */
  public record Rescue(
      UUID jobId, int attempt, JobState nextState, Instant nextRunAt, String error) {
    public Rescue {
      if (nextState != JobState.PENDING && nextState != JobState.FAILED) {
        throw new IllegalArgumentException("a rescue ends PENDING or FAILED, not " + nextState);
      }
      if ((nextState == JobState.PENDING) != (nextRunAt != null)) {
        throw new IllegalArgumentException("nextRunAt goes with PENDING, and only with it");
      }
    }
  }

  /**
   * Applies rescues (transitions RESCUE and RESCUE_EXHAUSTED) to jobs still RUNNING with the same
   * attempt and still silent since {@code staleBefore}; records each lost attempt as LOST. {@link
   * Ended#applied()} holds the ids rescued; a job that FAILED this way releases the jobs waiting
   * for it like any other end.
   */
  public Ended rescue(List<Rescue> rescues, Instant staleBefore) {
    if (rescues.isEmpty()) {
      return Ended.NONE;
    }
    int n = rescues.size();
    UUID[] ids = new UUID[n];
    Long[] scheduled = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] nextStates = new String[n];
    Long[] nextRunAt = new Long[n];
    String[] errors = new String[n];
    for (int i = 0; i < n; i++) {
      Rescue r = rescues.get(i);
      ids[i] = r.jobId();
      scheduled[i] = JobId.scheduledAt(r.jobId()).toEpochMilli();
      attempts[i] = r.attempt();
      nextStates[i] = r.nextState().name();
      nextRunAt[i] = r.nextRunAt() == null ? null : r.nextRunAt().toEpochMilli();
      errors[i] = r.error();
    }
    Instant now = clock.instant();
    return DeadlockRetry.run(
        "rescue",
        () ->
            byKeys(
                h -> {
                  Set<UUID> rescued =
                      new HashSet<>(
                          h.createQuery(sql("rescue"))
                              .bind("ids", ids)
                              .bind("scheduledMs", scheduled)
                              .bindMap(scheduledBounds(List.of(ids)))
                              .bind("attempts", attempts)
                              .bind("nextStates", nextStates)
                              .bind("nextRunAtMs", nextRunAt)
                              .bind("errors", errors)
                              .bind("staleBefore", staleBefore)
                              .bind("now", now)
                              .mapTo(UUID.class)
                              .list());
                  List<UUID> failed = new ArrayList<>();
                  for (Rescue r : rescues) {
                    if (r.nextState() == JobState.FAILED && rescued.contains(r.jobId())) {
                      failed.add(r.jobId());
                    }
                  }
                  return new Ended(rescued, dependencies.afterEnded(h, failed, now));
                }));
  }

  /** Where a pending job goes in Redis. */
  public record QueueEntry(UUID id, String namespace, Priority priority, Instant runAt) {}

  /** Pending jobs with run_at in (after, until], ordered by (run_at, id), after a keyset cursor. */
  public List<QueueEntry> pendingDue(Instant afterRunAt, UUID afterId, Instant until, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("pendingDue"))
                .bind("afterRunAt", afterRunAt)
                .bind("afterId", afterId)
                .bind("until", until)
                .bind("limit", limit)
                .map(
                    (rs, ctx) ->
                        new QueueEntry(
                            rs.getObject("id", UUID.class),
                            rs.getString("namespace"),
                            Priority.values()[rs.getShort("priority")],
                            JobRowMapper.instant(rs, "run_at")))
                .list());
  }

  /**
   * The earliest and latest scheduled time of a batch, bound as {@code :minScheduled} and {@code
   * :maxScheduled}: constant bounds let the planner prune to the partitions the batch touches.
   */
  static Map<String, Object> scheduledBounds(Collection<UUID> ids) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (UUID id : ids) {
      long ms = JobId.scheduledAt(id).toEpochMilli();
      min = Math.min(min, ms);
      max = Math.max(max, ms);
    }
    return Map.of(
        "minScheduled", Instant.ofEpochMilli(min), "maxScheduled", Instant.ofEpochMilli(max));
  }

  private static Long[] scheduledMillis(Collection<UUID> ids) {
    return ids.stream().map(id -> JobId.scheduledAt(id).toEpochMilli()).toArray(Long[]::new);
  }
}
