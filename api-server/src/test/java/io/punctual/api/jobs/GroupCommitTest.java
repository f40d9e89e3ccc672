package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  /** Doubles every item, refusing negative ones; records the batches it saw. */
  private List<Integer> doubling(List<Integer> items) {
    batches.add(List.copyOf(items));
    for (int item : items) {
      if (item < 0) {
        throw new IllegalArgumentException("negative: " + item);
      }
    }
    return items.stream().map(i -> i * 2).toList();
  }

  /** {@link #doubling}, but a batch holding 0 says it started and waits to be released. */
  private Function<List<Integer>, List<Integer>> slowOnZero(
      CountDownLatch started, CountDownLatch release) {
    return items -> {
      if (items.contains(0)) {
        started.countDown();
        await(release);
      }
      return doubling(items);
    };
  }

  @Test
  void aCallOnAnIdleSystemRunsAloneAndAtOnce() {
    GroupCommit<Integer, Integer> group = new GroupCommit<>(this::doubling, 2, 100);

    assertThat(group.call(21)).isEqualTo(42);
    assertThat(batches).containsExactly(List.of(21));
    assertThat(group.waiting()).isZero();
  }

  @Test
  void callsArrivingWhileTheSlotsAreBusyShareTheNextBatch() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Function<List<Integer>, List<Integer>> slowFirst = slowOnZero(firstStarted, releaseFirst);
    GroupCommit<Integer, Integer> group = new GroupCommit<>(slowFirst, 1, 100);

    Future<Integer> first = threads.submit(() -> group.call(0));
    assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
    List<Future<Integer>> others = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      int item = i;
      others.add(threads.submit(() -> group.call(item)));
    }
    waitUntil(() -> group.waiting() == 10);
    releaseFirst.countDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
    for (int i = 0; i < others.size(); i++) {
      assertThat(others.get(i).get(5, TimeUnit.SECONDS)).isEqualTo((i + 1) * 2);
    }
    assertThat(batches).hasSize(2);
    assertThat(batches.get(0)).containsExactly(0);
    assertThat(batches.get(1)).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
  }

  @Test
  void aBatchTakesAtMostMaxBatchCalls() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Function<List<Integer>, List<Integer>> slowFirst = slowOnZero(firstStarted, releaseFirst);
    GroupCommit<Integer, Integer> group = new GroupCommit<>(slowFirst, 1, 4);

    Future<Integer> first = threads.submit(() -> group.call(0));
    assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
    List<Future<Integer>> others = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      int item = i;
      others.add(threads.submit(() -> group.call(item)));
    }
    waitUntil(() -> group.waiting() == 10);
    releaseFirst.countDown();
    first.get(5, TimeUnit.SECONDS);
    for (Future<Integer> f : others) {
      f.get(5, TimeUnit.SECONDS);
    }

    assertThat(batches.subList(1, batches.size())).extracting(List::size).containsExactly(4, 4, 2);
  }

  @Test
  void aBatchThatFailsAsAWholeRunsEachCallAloneSoOnlyTheBadOneFails() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Function<List<Integer>, List<Integer>> slowFirst = slowOnZero(firstStarted, releaseFirst);
    GroupCommit<Integer, Integer> group = new GroupCommit<>(slowFirst, 1, 100);

    Future<Integer> first = threads.submit(() -> group.call(0));
    assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
    Future<Integer> good1 = threads.submit(() -> group.call(1));
    Future<Integer> bad = threads.submit(() -> group.call(-1));
    Future<Integer> good2 = threads.submit(() -> group.call(2));
    waitUntil(() -> group.waiting() == 3);
    releaseFirst.countDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
    assertThat(good1.get(5, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(good2.get(5, TimeUnit.SECONDS)).isEqualTo(4);
    assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative: -1");
    // The shared batch failed, then each of its calls ran alone.
    assertThat(batches.get(1)).containsExactlyInAnyOrder(1, -1, 2);
    assertThat(batches.subList(2, batches.size()))
        .containsExactlyInAnyOrder(List.of(1), List.of(-1), List.of(2));
  }

  @Test
  void theStepAfterABatchHoldsBackItsOwnCallsButNotTheNextBatch() throws Exception {
    CountDownLatch afterFirstStarted = new CountDownLatch(1);
    CountDownLatch releaseAfterFirst = new CountDownLatch(1);
    List<List<Integer>> afterSaw = Collections.synchronizedList(new ArrayList<>());
    GroupCommit<Integer, Integer> group =
        new GroupCommit<>(
            this::doubling,
            results -> {
              afterSaw.add(List.copyOf(results));
              if (results.contains(0)) { // the first batch's step stalls, like a stalled Redis
                afterFirstStarted.countDown();
                await(releaseAfterFirst);
              }
            },
            1,
            100);

    Future<Integer> first = threads.submit(() -> group.call(0));
    assertThat(afterFirstStarted.await(5, TimeUnit.SECONDS)).isTrue();
    // One slot, yet the next call's batch runs and returns while the first's step is stalled.
    assertThat(threads.submit(() -> group.call(5)).get(5, TimeUnit.SECONDS)).isEqualTo(10);
    assertThat(first.isDone()).isFalse();

    releaseAfterFirst.countDown();
    assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
    assertThat(afterSaw).containsExactly(List.of(0), List.of(10));
  }

  @Test
  void theStepAfterABatchRunsForCallsRunAloneAndItsFailureFailsNoCall() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Function<List<Integer>, List<Integer>> slowFirst = slowOnZero(firstStarted, releaseFirst);
    List<Integer> afterSaw = Collections.synchronizedList(new ArrayList<>());
    GroupCommit<Integer, Integer> group =
        new GroupCommit<>(
            slowFirst,
            results -> {
              afterSaw.addAll(results);
              throw new IllegalStateException("after failed");
            },
            1,
            100);

    Future<Integer> first = threads.submit(() -> group.call(0));
    assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
    Future<Integer> good = threads.submit(() -> group.call(1));
    Future<Integer> bad = threads.submit(() -> group.call(-1));
    waitUntil(() -> group.waiting() == 2);
    releaseFirst.countDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).isZero();
    assertThat(good.get(5, TimeUnit.SECONDS)).isEqualTo(2);
    assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS)).hasMessageContaining("negative: -1");
    // The shared batch {1, -1} failed as a whole: no step for it; then 1 ran alone, with its step.
    assertThat(afterSaw).containsExactlyInAnyOrder(0, 2);
  }

  @Test
  void aFailingCallAloneGetsItsException() {
    GroupCommit<Integer, Integer> group = new GroupCommit<>(this::doubling, 2, 100);

    assertThatThrownBy(() -> group.call(-7)).hasMessage("negative: -7");
    assertThat(group.call(3)).isEqualTo(6); // the slot was given back
  }

  @Test
  void aBatchReturningTheWrongNumberOfResultsFailsItsCalls() {
    GroupCommit<Integer, Integer> group = new GroupCommit<>(items -> List.of(), 1, 100);

    assertThatThrownBy(() -> group.call(1)).hasMessageContaining("0 results for 1 items");
  }

  @Test
  void manyConcurrentCallersEachGetTheirOwnResultAndShareBatches() throws Exception {
    GroupCommit<Integer, Integer> group =
        new GroupCommit<>(
            items -> {
              sleepMillis(1); // a commit takes a moment: callers pile up meanwhile
              return doubling(items);
            },
            2,
            64);
    int callers = 32;
    int callsEach = 200;
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      int base = t * callsEach;
      all.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < callsEach; i++) {
                  int item = base + i;
                  assertThat(group.call(item)).isEqualTo(item * 2);
                }
              },
              threads));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    int calls = callers * callsEach;
    assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(calls);
    assertThat(batches.stream().flatMap(List::stream).distinct().count()).isEqualTo(calls);
    assertThat(batches.size()).isLessThan(calls / 4); // they did share batches
    assertThat(group.waiting()).isZero();
  }

  @Test
  void refusesSettingsThatCouldNeverRun() {
    assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(this::doubling, 0, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(this::doubling, 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch not released");
      }
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met in 10 s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
