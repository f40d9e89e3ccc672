package io.punctual.api.jobs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs concurrent single calls as batches, the way a database groups commits: a caller that finds
 * fewer than {@code maxConcurrent} batches running starts one at once with every call waiting (its
 * own included); callers arriving while {@code maxConcurrent} batches run wait, and the next batch
 * takes them all. There is no timer and no added wait: on an idle system each call runs alone and
 * at once; on a busy one many calls share one transaction, one round trip and one commit.
 *
 * <p>A batch runs on a caller's thread (the leader's). When it ends and calls are waiting, the
 * leader hands the next batch to one of them and returns with its own result, so no caller works
 * for longer than its own batch.
 *
 * <p>When a batch of several fails as a whole, every call in it runs again alone, on its own
 * thread: one bad item (say a conflicting idempotency key) must fail only its own call. A batch of
 * one failing fails its call with that exception.
 *
 * <p>An optional {@code afterBatch} step runs on a batch's results once the batch has given its
 * slot back (or handed it on) and before its callers are answered: work that must happen before the
 * answer but must not hold back the next batch, such as telling Redis about jobs a transaction
 * committed. It runs for a call run alone too. Its exceptions are logged, never thrown: the batch
 * it follows has already happened.
 *
 * @param <I> what one call submits
 * @param <O> what one call gets back
 */
public final class GroupCommit<I, O> {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

  private final Function<List<I>, List<O>> batch;
  private final Consumer<List<O>> afterBatch;
  private final int maxConcurrent;
  private final int maxBatch;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();
  private int running;

  /**
   * @param batch runs items together (one transaction); returns one result per item, in order
   * @param maxConcurrent most batches running at once (at least 1)
   * @param maxBatch most items in one batch (at least 1)
   */
  public GroupCommit(Function<List<I>, List<O>> batch, int maxConcurrent, int maxBatch) {
    this(batch, results -> {}, maxConcurrent, maxBatch);
  }

  /**
   * @param batch runs items together (one transaction); returns one result per item, in order
   * @param afterBatch runs on a batch's results after its slot is free, before its calls return
   * @param maxConcurrent most batches running at once (at least 1)
   * @param maxBatch most items in one batch (at least 1)
   */
  public GroupCommit(
      Function<List<I>, List<O>> batch,
      Consumer<List<O>> afterBatch,
      int maxConcurrent,
      int maxBatch) {
    if (maxConcurrent < 1 || maxBatch < 1) {
      throw new IllegalArgumentException("maxConcurrent and maxBatch must be at least 1");
    }
    this.batch = Objects.requireNonNull(batch, "batch");
    this.afterBatch = Objects.requireNonNull(afterBatch, "afterBatch");
    this.maxConcurrent = maxConcurrent;
    this.maxBatch = maxBatch;
  }

  /** Runs {@code item} in the next batch and returns its result, or throws what it threw. */
  public O call(I item) {
    Call me = new Call(item, lock.newCondition());
    List<Call> lead;
    lock.lock();
    try {
      waiting.add(me);
      lead = running < maxConcurrent ? takeBatch() : null;
      if (lead != null) {
        running++;
      }
      while (lead == null && me.state == State.WAITING) {
        me.signal.awaitUninterruptibly();
        if (me.state == State.LEADING) {
          lead = me.handedOver;
          me.handedOver = null;
        }
      }
    } finally {
      lock.unlock();
    }
    if (lead != null) {
      runAndHandOver(lead);
    }
    return me.result();
  }

  /** Calls waiting for a batch (for metrics and tests). */
  public int waiting() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  private List<Call> takeBatch() {
    List<Call> taken = new ArrayList<>(Math.min(waiting.size(), maxBatch));
    while (!waiting.isEmpty() && taken.size() < maxBatch) {
      taken.add(waiting.poll());
    }
    return taken;
  }

  /**
   * Runs a batch (outside the lock), hands the waiting calls to one of them or gives the slot back,
   * runs {@code afterBatch} (outside the lock), then records each call's outcome and wakes their
   * callers.
   */
  private void runAndHandOver(List<Call> calls) {
    List<O> results = null;
    Throwable failure = null;
    try {
      results = run(calls);
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    lock.lock();
    try {
      if (waiting.isEmpty()) {
        running--;
      } else {
        List<Call> next = takeBatch();
        Call leader = next.get(0);
        leader.state = State.LEADING;
        leader.handedOver = next;
        leader.signal.signal();
      }
    } finally {
      lock.unlock();
    }
    if (failure == null) {
      after(results);
    }
    lock.lock();
    try {
      for (int i = 0; i < calls.size(); i++) {
        Call c = calls.get(i);
        if (failure == null) {
          c.value = results.get(i);
        } else if (calls.size() == 1) {
          c.failure = failure;
        } else {
          c.alone = true;
        }
        c.state = State.DONE;
        c.signal.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  private void after(List<O> results) {
    try {
      afterBatch.accept(results);
    } catch (RuntimeException e) {
      LOG.error(
          "step after a batch failed, its calls are answered anyway items={}", results.size(), e);
    }
  }

  private List<O> run(List<Call> calls) {
    List<I> items = new ArrayList<>(calls.size());
    for (Call c : calls) {
      items.add(c.item);
    }
    List<O> results = batch.apply(items);
    if (results.size() != calls.size()) {
      throw new IllegalStateException(
          "batch returned " + results.size() + " results for " + calls.size() + " items");
    }
    return results;
  }

  private enum State {
    WAITING,
    LEADING,
    DONE
  }

  /** One caller's item and, once its batch ran, its outcome. Fields guarded by the lock. */
  private final class Call {
    final I item;
    final Condition signal;
    State state = State.WAITING;
    List<Call> handedOver;
    O value;
    Throwable failure;
    boolean alone;

    Call(I item, Condition signal) {
      this.item = item;
      this.signal = signal;
    }

    /** The outcome, once DONE; a call whose batch failed as a whole runs alone, here. */
    O result() {
      if (alone) {
        List<O> own = batch.apply(List.of(item));
        after(own);
        return own.get(0);
      }
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      return value;
    }
  }
}
