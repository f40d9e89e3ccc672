package io.punctual.store;

import io.punctual.model.Completion;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.JobTransitions.Ended;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertOutbox;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * {@link JobTransitions#finish}: applies finished attempts ({@link
 * JobTransitions#succeedRetryOrFail}) and, in the same transaction, stores the jobs the successes
 * spawned (children of the job, on_success) and judges the jobs waiting for the jobs that ended.
 *
 * <p>Follow-ups the store refuses fail the attempt that spawned them, not the batch: a success
 * whose follow-ups are wrong on their own ({@link Spawn#problem}) is recorded as a non-retryable
 * failure whose error says why ({@link JobTransitions#FOLLOW_UPS_REFUSED}); when storing the
 * follow-ups of a batch is refused by the database (a key already used with another request, a job
 * to wait for that does not exist...), the batch is rolled back and its completions are finished
 * one at a time, each in its own transaction, so that only the one at fault is recorded as failed,
 * still fenced by its attempt number. Two successes of one batch spawning the same idempotency key
 * with the same request store one job: the second is an idempotent repeat of the first.
 */
final class Finishing {
  private final Jdbi jdbi;
  private final JobSubmissions submissions;
  private final Clock clock;
  private final DependencyResolver dependencies = new DependencyResolver();
  private final SpawnedSteps spawnedSteps = new SpawnedSteps();
  private final AlertOutbox alerts;

  Finishing(Jdbi jdbi, JobSubmissions submissions, Clock clock, AlertOutbox alerts) {
    this.jdbi = jdbi;
    this.submissions = submissions;
    this.clock = clock;
    this.alerts = alerts;
  }

  Ended finish(List<Completion> completions, String workerId, Set<UUID> unwritten) {
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
      ended = finishTogether(checked, workerId, unwritten);
    } catch (FollowUpsRefusedException e) {
      ended = finishOneByOne(checked, workerId, refused, unwritten);
    }
    refused.keySet().retainAll(ended.applied());
    return new Ended(ended.applied(), ended.released(), refused);
  }

  private static Completion refuse(Completion c, String why, Map<UUID, String> refused) {
    Completion failed = c.failed(JobTransitions.FOLLOW_UPS_REFUSED + why);
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
      List<Completion> completions,
      String workerId,
      Map<UUID, String> refused,
      Set<UUID> unwritten) {
    Set<UUID> applied = new HashSet<>();
    List<QueueEntry> released = new ArrayList<>();
    for (Completion c : completions) {
      Ended one;
      try {
        one = finishTogether(List.of(c), workerId, unwritten);
      } catch (FollowUpsRefusedException e) {
        one = finishTogether(List.of(refuse(c, e.getMessage(), refused)), workerId, unwritten);
      }
      applied.addAll(one.applied());
      released.addAll(one.released());
    }
    return new Ended(applied, released);
  }

  /** Finishes {@code completions} in one transaction, follow-ups and judgements included. */
  private Ended finishTogether(List<Completion> completions, String workerId, Set<UUID> unwritten) {
    Instant now = clock.instant();
    Spawn spawn = Spawn.of(completions);
    List<UUID> spawnIds = submissions.prepare(spawn.jobs(), now);
    Set<AlertEvent> watched = alerts.watched();
    return DeadlockRetry.run(
        "finish",
        () ->
            JobTransitions.byKeys(
                jdbi,
                h -> {
                  Map<UUID, SpawnedSteps.SpawnerStep> spawnerSteps =
                      spawnedSteps.lock(h, new HashSet<>(spawn.parents()));
                  Set<UUID> applied =
                      JobTransitions.succeedRetryOrFail(h, completions, workerId, now, unwritten);
                  // Alert events of these endings, committed with them or not at all.
                  AlertOutbox.afterEnded(
                      h, AlertEndings.finished(watched, completions, applied), now);
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
      List<Submitted> stored = submissions.submitIn(h, jobs, spawned.ids(), now, true);
      List<SpawnedSteps.NewStep> steps = new ArrayList<>();
      for (int i = 0; i < stored.size(); i++) {
        Submitted s = stored.get(i);
        UUID spawner = spawned.parents().get(i);
        if (s.created() && spawnerSteps.containsKey(spawner)) {
          steps.add(
              new SpawnedSteps.NewStep(
                  spawnerSteps.get(spawner), spawner, spawned.indexes().get(i), s.job().id()));
        }
        if (seen.add(s.job().id()) && s.job().status() == JobState.PENDING) {
          pending.add(
              new QueueEntry(
                  s.job().id(), s.job().namespace(), s.job().priority(), s.job().runAt()));
        }
      }
      spawnedSteps.insert(h, steps);
    } catch (RuntimeException e) {
      throw FollowUpsRefusedException.of(e).orElseThrow(() -> e);
    }
    return pending;
  }
}
