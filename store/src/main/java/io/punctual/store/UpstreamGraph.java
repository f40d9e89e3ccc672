package io.punctual.store;

import io.punctual.model.NewJob;
import io.punctual.model.Upstream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Checks the edges between the jobs of one submission: each names another job of the submission,
 * and following them never leads back to where it started. (Edges to stored jobs cannot close a
 * cycle: a stored job never waits for a job that does not exist yet.) The API checks the same
 * first, to name the field at fault; this is the store's own guard.
 */
final class UpstreamGraph {
  private UpstreamGraph() {}

  static void requireAcyclic(List<NewJob> jobs) {
    int n = jobs.size();
    int[] waitingFor = new int[n];
    List<List<Integer>> waitedForBy = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      waitedForBy.add(new ArrayList<>());
    }
    for (int i = 0; i < n; i++) {
      for (Upstream u : jobs.get(i).links().upstream()) {
        if (!u.inBatch()) {
          continue;
        }
        if (u.index() >= n || u.index() == i) {
          throw new IllegalArgumentException(
              "job " + i + " waits for job " + u.index() + " of a submission of " + n);
        }
        waitingFor[i]++;
        waitedForBy.get(u.index()).add(i);
      }
    }
    // Kahn: repeatedly take jobs that wait for nothing left; whatever remains is on a cycle.
    Deque<Integer> ready = new ArrayDeque<>();
    for (int i = 0; i < n; i++) {
      if (waitingFor[i] == 0) {
        ready.add(i);
      }
    }
    int done = 0;
    while (!ready.isEmpty()) {
      int j = ready.poll();
      done++;
      for (int i : waitedForBy.get(j)) {
        if (--waitingFor[i] == 0) {
          ready.add(i);
        }
      }
    }
    if (done < n) {
      throw new IllegalArgumentException(
          "the jobs of this submission wait for each other in a cycle");
    }
  }
}
