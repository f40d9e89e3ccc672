package io.punctual.worker.claim;

import io.punctual.model.Job;
import io.punctual.queue.ReadyQueue.Claimed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A claim's job ids in the order Redis handed them out (due time, then priority), which is the
 * order its confirmed jobs are started in.
 *
 * <p>Its loops over a claim's jobs are methods of their own rather than loops inside the claim
 * loop's per-claim method: that method runs once per claim, and a loop of hundreds of jobs inside
 * it made the JIT compile it twice, once for the loop alone (on-stack replacement), while a new
 * worker's first claims ran (docs/performance-log.md, a thirteenth machine).
 */
final class ClaimOrder {
  private final List<UUID> ids;
  private final Map<UUID, Integer> places;

  private ClaimOrder(List<UUID> ids, Map<UUID, Integer> places) {
    this.ids = ids;
    this.places = places;
  }

  static ClaimOrder of(List<Claimed> claimed) {
    List<UUID> ids = new ArrayList<>(claimed.size());
    Map<UUID, Integer> places = HashMap.newHashMap(claimed.size());
    for (Claimed c : claimed) {
      places.put(c.id(), ids.size());
      ids.add(c.id());
    }
    return new ClaimOrder(ids, places);
  }

  /** The claimed ids, in the claim's order (an id claimed twice is there twice). */
  List<UUID> ids() {
    return ids;
  }

  /**
   * {@code confirmed} (jobs of this claim) in the claim's order: each put at its place, not sorted;
   * an id claimed twice takes its last place.
   */
  List<Job> inOrder(List<Job> confirmed) {
    Job[] placed = new Job[ids.size()];
    for (Job job : confirmed) {
      placed[places.get(job.id())] = job;
    }
    List<Job> jobs = new ArrayList<>(confirmed.size());
    for (Job job : placed) {
      if (job != null) {
        jobs.add(job);
      }
    }
    return jobs;
  }

  static Set<UUID> idsOf(List<Job> jobs) {
    Set<UUID> ids = HashSet.newHashSet(jobs.size());
    for (Job job : jobs) {
      ids.add(job.id());
    }
    return ids;
  }
}
