package io.punctual.store;

import io.punctual.model.Completion;
import io.punctual.model.FollowUpRules;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The follow-up jobs a batch of completions asks for. Each becomes a child of the job that spawned
 * it (parent edge, on_success, shown as its parent id): stored in the transaction that records the
 * success, it is judged at once and starts PENDING; if the success is refused (a stale attempt),
 * nothing is stored. A completion's follow-ups are checked first ({@link #problem}): those of one
 * completion never name those of another.
 */
record Spawn(List<NewJob> jobs, List<UUID> parents, List<Integer> indexes) {
  /**
   * The follow-ups of the successful completions, in order, their indexes made batch-wide; {@code
   * parents}: the job that spawned each, {@code indexes}: its index among that job's follow-ups.
   */
  static Spawn of(List<Completion> completions) {
    List<NewJob> jobs = new ArrayList<>();
    List<UUID> parents = new ArrayList<>();
    List<Integer> indexes = new ArrayList<>();
    for (Completion c : completions) {
      if (c.nextState() != JobState.SUCCEEDED) {
        continue;
      }
      int offset = jobs.size();
      for (NewJob job : c.spawned()) {
        List<Upstream> upstream = new ArrayList<>();
        upstream.add(Upstream.stored(c.jobId(), RunCondition.ON_SUCCESS).asParent());
        for (Upstream u : job.links().upstream()) {
          // Indexes name earlier jobs spawned by the same completion (checked by problem()).
          upstream.add(u.inBatch() ? Upstream.inBatch(offset + u.index(), u.condition()) : u);
        }
        jobs.add(job.withLinks(job.links().withUpstream(upstream)));
        parents.add(c.jobId());
        indexes.add(jobs.size() - 1 - offset);
      }
    }
    return new Spawn(jobs, parents, indexes);
  }

  /**
   * Why the follow-ups of {@code c} cannot be stored whatever the database holds ({@link
   * FollowUpRules}), or null.
   */
  static String problem(Completion c) {
    return FollowUpRules.problem(c.jobId(), c.spawned());
  }

  /**
   * Keeps the jobs spawned by applied completions, with their prepared ids {@code ids} (indexes
   * between them renumbered: a refused completion's jobs drop out, and the same completion's jobs
   * stay together).
   */
  Spawn.Kept keepApplied(Set<UUID> applied, List<UUID> ids) {
    int[] newIndex = new int[jobs.size()];
    int next = 0;
    for (int i = 0; i < jobs.size(); i++) {
      newIndex[i] = applied.contains(parents.get(i)) ? next++ : -1;
    }
    Kept kept =
        new Kept(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < jobs.size(); i++) {
      if (newIndex[i] < 0) {
        continue;
      }
      NewJob job = jobs.get(i);
      List<Upstream> upstream = new ArrayList<>();
      for (Upstream u : job.links().upstream()) {
        upstream.add(u.inBatch() ? Upstream.inBatch(newIndex[u.index()], u.condition()) : u);
      }
      kept.jobs().add(job.withLinks(job.links().withUpstream(upstream)));
      kept.ids().add(ids.get(i));
      kept.parents().add(parents.get(i));
      kept.indexes().add(indexes.get(i));
    }
    return kept;
  }

  /** The follow-ups to store, their ids, the job that spawned each and its index there. */
  record Kept(List<NewJob> jobs, List<UUID> ids, List<UUID> parents, List<Integer> indexes) {}
}
