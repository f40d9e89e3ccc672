package io.punctual.store;

import io.punctual.model.JobState;
import io.punctual.model.RunCondition;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What becomes of a BLOCKED job, given the jobs it waits for: {@link Wait} while a condition is
 * still open, {@link Unblock} (transition UNBLOCK) once every condition holds, {@link Skip}
 * (transition SKIP) as soon as one can no longer hold. The parent's condition is judged first, so a
 * skipped child names its parent when both would explain it.
 */
sealed interface BlockedVerdict {
  /** One edge of a blocked job: it waits for {@code upstreamId} on {@code condition}. */
  record Edge(UUID jobId, UUID upstreamId, RunCondition condition, boolean parent) {}

  /** Still waiting: {@code open} of its edges lead to jobs that have not ended. */
  record Wait(int open) implements BlockedVerdict {}

  record Unblock() implements BlockedVerdict {}

  record Skip(String reason) implements BlockedVerdict {}

  /**
   * Judges one blocked job from its edges and the current state of each upstream job (an upstream
   * missing from {@code states} no longer exists, e.g. its partition went past retention).
   */
  static BlockedVerdict of(List<Edge> edges, Map<UUID, JobState> states) {
    List<Edge> ordered =
        edges.stream().sorted(Comparator.comparing((Edge e) -> !e.parent())).toList();
    int open = 0;
    for (Edge edge : ordered) {
      JobState state = states.get(edge.upstreamId());
      if (state == null) {
        return new Skip(describe(edge) + " " + edge.upstreamId() + " no longer exists");
      }
      if (edge.condition().ruledOutBy(state)) {
        return new Skip(
            describe(edge)
                + " "
                + edge.upstreamId()
                + " ended "
                + state
                + ", run condition "
                + edge.condition().wireName());
      }
      if (!edge.condition().heldBy(state)) {
        open++;
      }
    }
    return open == 0 ? new Unblock() : new Wait(open);
  }

  private static String describe(Edge edge) {
    if (edge.parent()) {
      return "parent";
    }
    return edge.condition() == RunCondition.ON_SUCCESS
        ? "required dependency"
        : "dependency (" + edge.condition().wireName() + ")";
  }
}
