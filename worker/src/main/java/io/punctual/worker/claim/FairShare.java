package io.punctual.worker.claim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * How a claim pass shares the worker's free slots among its namespaces: start-time fair queueing
 * over job starts, weighted per namespace. Every namespace has a virtual time, the jobs it started
 * divided by its weight; each free slot goes to the namespace that would be least far ahead after
 * taking it (the lowest {@code virtualTime + 1 / weight}). So while several namespaces have due
 * jobs, their starts split by weight (3:1 for weights 3 and 1), and a namespace with due jobs takes
 * its share of every pass however long another one's backlog is.
 *
 * <p>Work-conserving: a namespace takes only jobs that are due, so a share it leaves goes to the
 * namespaces claimed after it in the same pass. For that, a pass claims first the namespaces that
 * had nothing left due at their last claim (they take their share or less), then the backlogged
 * ones, the one furthest behind first; the shares are planned from the slots free when the pass
 * begins, and what a namespace leaves of its share is added to the next one's.
 *
 * <p>No banking: a namespace that had nothing due comes back at the virtual time of the namespaces
 * that kept busy meanwhile (the least advanced of them), not with the credit of its idle time, so
 * it cannot take more than its share later either. Its debt (it took more than its share when it
 * was last served) is kept; it is at most one claim's worth.
 *
 * <p>Not thread-safe: one claim loop's.
 */
final class FairShare {
  private final ToIntFunction<String> weight;
  private final Map<String, Double> virtualTime = new HashMap<>();
  private final Set<String> backlogged = new HashSet<>();

  /**
   * @param weight a namespace's weight (at least 1), as last read
   */
  FairShare(ToIntFunction<String> weight) {
    this.weight = weight;
  }

  /**
   * The order in which a pass claims {@code namespaces} (those that may be claimed now): the ones
   * with nothing left due at their last claim first, then the backlogged ones, the least advanced
   * first; ties in the order given. Lifts the namespaces that were not backlogged to the virtual
   * time of the backlogged ones (no credit for idle time).
   */
  List<String> order(List<String> namespaces) {
    double floor = Double.MAX_VALUE;
    double top = 0;
    for (String ns : namespaces) {
      double vt = virtualTime.getOrDefault(ns, 0.0);
      top = Math.max(top, vt);
      if (backlogged.contains(ns)) {
        floor = Math.min(floor, vt);
      }
    }
    if (floor == Double.MAX_VALUE) {
      floor = top; // nobody is behind: everyone starts level
    }
    List<String> idle = new ArrayList<>();
    List<String> busy = new ArrayList<>();
    for (String ns : namespaces) {
      double vt = virtualTime.getOrDefault(ns, 0.0);
      if (backlogged.contains(ns)) {
        busy.add(ns);
      } else {
        idle.add(ns);
        vt = Math.max(vt, floor);
      }
      // Relative to the floor: the numbers stay small however many jobs ran.
      virtualTime.put(ns, vt - floor);
    }
    busy.sort(Comparator.comparingDouble(virtualTime::get));
    idle.addAll(busy);
    return idle;
  }

  /**
   * How many of {@code free} slots each of {@code order} (a pass's namespaces, as {@link #order}
   * gave them) may take: the free slots handed out one by one, each to the namespace least advanced
   * after taking it (ties to the earlier in {@code order}). Slots that free while the pass claims
   * are the next pass's, so that a namespace claimed late in a pass does not take them all.
   */
  int[] plan(List<String> order, int free) {
    int[] shares = new int[order.size()];
    if (order.isEmpty()) {
      return shares; // every namespace of the worker is deactivated or over its quota: no share
    }
    if (order.size() == 1) {
      shares[0] = free;
      return shares;
    }
    record Next(int index, double finish, double step) {}
    PriorityQueue<Next> heap =
        new PriorityQueue<>(Comparator.comparingDouble(Next::finish).thenComparingInt(Next::index));
    for (int i = 0; i < order.size(); i++) {
      String n = order.get(i);
      double step = 1.0 / weightOf(n);
      heap.add(new Next(i, virtualTime.getOrDefault(n, 0.0) + step, step));
    }
    for (int slot = 0; slot < free; slot++) {
      Next next = heap.poll();
      shares[next.index()]++;
      heap.add(new Next(next.index(), next.finish() + next.step(), next.step()));
    }
    return shares;
  }

  /**
   * What a claim of {@code ns} did: it started (or holds slots for) {@code taken} jobs, and due
   * jobs are left in its queues or not.
   */
  void claimed(String ns, int taken, boolean dueLeft) {
    virtualTime.merge(ns, (double) taken / weightOf(ns), Double::sum);
    if (dueLeft) {
      backlogged.add(ns);
    } else {
      backlogged.remove(ns);
    }
  }

  /** Whether {@code ns} had due jobs left at its last claim. */
  boolean backlogged(String ns) {
    return backlogged.contains(ns);
  }

  private int weightOf(String ns) {
    return Math.max(1, weight.applyAsInt(ns));
  }
}
