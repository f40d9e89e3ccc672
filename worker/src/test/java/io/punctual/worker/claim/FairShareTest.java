package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The share of free slots each namespace takes, passes simulated without Redis: each namespace has
 * a number of due jobs and takes up to its share of them, as the claim loop does.
 */
class FairShareTest {
  private final Map<String, Integer> weights = new HashMap<>();
  private final FairShare fair = new FairShare(ns -> weights.getOrDefault(ns, 1));

  /** One pass over {@code due} (mutated: what each takes is gone); returns what each took. */
  private Map<String, Integer> pass(Map<String, Long> due, int free) {
    Map<String, Integer> took = new HashMap<>();
    List<String> order = fair.order(List.copyOf(due.keySet().stream().sorted().toList()));
    int[] plan = fair.plan(order, free);
    int carried = 0;
    for (int i = 0; i < order.size(); i++) {
      String ns = order.get(i);
      int share = plan[i] + carried;
      int take = (int) Math.min(share, due.get(ns));
      due.merge(ns, (long) -take, Long::sum);
      carried = share - take;
      took.merge(ns, take, Integer::sum);
      fair.claimed(ns, take, due.get(ns) > 0);
    }
    return took;
  }

  @Test
  void aPassWithNoClaimableNamespacePlansNothing() {
    // Every namespace of the worker deactivated: the claim loop's pass has nothing to share (this
    // was a NullPointerException in the claim loop, retried every few milliseconds).
    assertThat(fair.order(List.of())).isEmpty();
    assertThat(fair.plan(List.of(), 64)).isEmpty();
    assertThat(pass(new HashMap<>(Map.of("a", 3L)), 64)).containsEntry("a", 3);
  }

  @Test
  void aNamespaceWithNothingDueTakesNothingAndLeavesEverySlotToTheOthers() {
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 0L));
    // The first pass knows nothing yet: b's half goes unused (the loop claims again at once, as
    // jobs are left due); from then on b is asked first and a takes what b leaves.
    assertThat(pass(due, 64)).containsEntry("a", 32).containsEntry("b", 0);

    for (int p = 0; p < 10; p++) {
      Map<String, Integer> took = pass(due, 64);
      assertThat(took.get("a")).isEqualTo(64);
      assertThat(took.get("b")).isZero();
    }
  }

  @Test
  void aTrickleIsTakenInTheFirstPassItIsDueHoweverLongTheOtherBacklog() {
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 0L));
    for (int p = 0; p < 100; p++) {
      pass(due, 32); // a alone for a while: b must not come back with credit, nor in debt
    }

    for (int p = 0; p < 100; p++) {
      due.put("b", 1L);
      Map<String, Integer> took = pass(due, 32);
      assertThat(took.get("b")).as("pass %d", p).isEqualTo(1);
      assertThat(took.get("a")).isEqualTo(31);
    }
  }

  @Test
  void evenOneFreeSlotAPassAlternatesBetweenEqualNamespaces() {
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 1_000_000L));
    Map<String, Integer> total = new HashMap<>();

    for (int p = 0; p < 1000; p++) {
      pass(due, 1).forEach((ns, n) -> total.merge(ns, n, Integer::sum));
    }

    assertThat(total).containsEntry("a", 500).containsEntry("b", 500);
  }

  @Test
  void backloggedNamespacesSplitByWeight() {
    weights.put("a", 3);
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 1_000_000L));
    Map<String, Integer> total = new HashMap<>();

    for (int p = 0; p < 1000; p++) {
      pass(due, 1 + p % 7).forEach((ns, n) -> total.merge(ns, n, Integer::sum));
    }

    int all = total.get("a") + total.get("b");
    assertThat(all).isEqualTo(3997); // 1000 passes of 1..7 slots
    assertThat(total.get("a")).isBetween(2996, 2999); // 3/4 of them, give or take a slot
  }

  @Test
  void aLightNamespaceIsNotStarvedByAHeavyOne() {
    weights.put("heavy", 1000);
    Map<String, Long> due = new HashMap<>(Map.of("heavy", 10_000_000L, "light", 10_000_000L));
    int lightStarts = 0;
    int longestWait = 0;
    int waited = 0;

    for (int p = 0; p < 20_000; p++) {
      int n = pass(due, 1).getOrDefault("light", 0);
      lightStarts += n;
      waited = n > 0 ? 0 : waited + 1;
      longestWait = Math.max(longestWait, waited);
    }

    // One start in 1001: the light namespace waits at most 1001 slots, never longer.
    assertThat(lightStarts).isBetween(19, 20);
    assertThat(longestWait).isLessThanOrEqualTo(1001);
  }

  @Test
  void aNamespaceBackAfterIdlingGetsItsShareNotTheCreditOfItsIdleTime() {
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 0L));
    for (int p = 0; p < 1000; p++) {
      pass(due, 10);
    }

    due.put("b", 1_000_000L);
    Map<String, Integer> took = pass(due, 10);

    assertThat(took).containsEntry("a", 5).containsEntry("b", 5);
  }

  @Test
  void weightsAreReadAtEveryShare() {
    Map<String, Long> due = new HashMap<>(Map.of("a", 1_000_000L, "b", 1_000_000L));
    assertThat(pass(due, 8)).containsEntry("a", 4).containsEntry("b", 4);

    weights.put("b", 3);
    Map<String, Integer> total = new HashMap<>();
    for (int p = 0; p < 100; p++) {
      pass(due, 8).forEach((ns, n) -> total.merge(ns, n, Integer::sum));
    }

    assertThat(total).containsEntry("a", 200).containsEntry("b", 600);
  }
}
