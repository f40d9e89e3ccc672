package io.punctual.worker.claim;

import io.punctual.model.Job;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.store.JobTransitions.UnwrittenClaim;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The attempts this worker holds whose claims it read but has not written ({@code
 * worker.claimWriteAfter}): their job rows are still PENDING with the attempt before. Each is in
 * one of three states, and only one writer ever writes its row: the claim writer takes those that
 * outlived the window ({@link #takeDue}) and writes their claims; the completion batch takes those
 * whose attempt ended ({@link #takeForFinish}) and writes claim and end together. A completion
 * waits for a claim write in progress, so the finish knows which guard its row needs.
 *
 * <p>It also gathers the jobs to take out of the worker's held-claims set in Redis ({@link
 * #drainLetGo}): those whose claim was written, whose end was recorded, or whose claim was given
 * up. And it knows when each claim's lease was last known to be this worker's ({@link
 * #leaseUnsure}, for {@link UnwrittenLeases}).
 */
public final class UnwrittenClaims {
  private enum State {
    UNWRITTEN,
    WRITING,
    FINISHING
  }

  private static final class Entry {
    final Job job;
    final long claimedNanos;
    volatile long leaseNanos;
    final AtomicReference<State> state = new AtomicReference<>(State.UNWRITTEN);

    Entry(Job job, long claimedNanos, long leaseNanos) {
      this.job = job;
      this.claimedNanos = claimedNanos;
      this.leaseNanos = leaseNanos;
    }
  }

  private final Map<UUID, Entry> byJob = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<UUID> letGo = new ConcurrentLinkedQueue<>();
  private final LongSupplier nanoTime;

  public UnwrittenClaims() {
    this(System::nanoTime);
  }

  /** {@code nanoTime}: the monotonic clock the claims' ages are read on (a test's own). */
  public UnwrittenClaims(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** The clock the claims' ages are read on. */
  public long nanoTime() {
    return nanoTime.getAsLong();
  }

  /**
   * Holds the claims of {@code jobs}, read now (each job as the claim would have made it), whose
   * leases were asked for at {@code leasedNanos} (on {@link #nanoTime()}).
   */
  public void add(Collection<Job> jobs, long leasedNanos) {
    long now = nanoTime();
    for (Job job : jobs) {
      byJob.put(job.id(), new Entry(job, now, leasedNanos));
    }
  }

  /**
   * Of {@code ids}, the jobs whose claims are held unwritten here and whose leases were last known
   * to be this worker's more than {@code maxAgeNanos} ago.
   */
  public List<UUID> leaseUnsure(Collection<UUID> ids, long maxAgeNanos) {
    long now = nanoTime();
    List<UUID> unsure = new ArrayList<>();
    for (UUID id : ids) {
      Entry e = byJob.get(id);
      if (e != null && now - e.leaseNanos > maxAgeNanos) {
        unsure.add(id);
      }
    }
    return unsure;
  }

  /** The leases of {@code ids} were this worker's when asked at {@code sinceNanos}. */
  public void leaseConfirmed(Collection<UUID> ids, long sinceNanos) {
    for (UUID id : ids) {
      Entry e = byJob.get(id);
      if (e != null) {
        e.leaseNanos = sinceNanos;
      }
    }
  }

  /** Jobs of a claim that did not become attempts here: out of the held-claims set. */
  public void gaveUp(Collection<UUID> ids) {
    letGo.addAll(ids);
  }

  /**
   * Whether the claim of job {@code jobId}'s attempt {@code attempt} here is not written (yet). By
   * attempt, not by job alone: a worker may hold a new attempt of a job whose earlier attempt's
   * handler is still ending here (a worker that wakes from a pause and claims a rescued job again).
   */
  public boolean isUnwritten(UUID jobId, int attempt) {
    Entry e = byJob.get(jobId);
    return e != null && e.job.attempt() == attempt;
  }

  /** Whether a claim of job {@code jobId} is held unwritten here for an attempt other than this. */
  public boolean holdsOther(UUID jobId, int attempt) {
    Entry e = byJob.get(jobId);
    return e != null && e.job.attempt() != attempt;
  }

  /** How many claims are held unwritten. */
  public int size() {
    return byJob.size();
  }

  /**
   * The unwritten claims held at least {@code minAgeNanos}, now marked as being written: no
   * completion takes them until {@link #written}, {@link #refused} or {@link #notWritten}.
   */
  public List<UnwrittenClaim> takeDue(long minAgeNanos) {
    long now = nanoTime();
    List<UnwrittenClaim> due = new ArrayList<>();
    for (Entry e : byJob.values()) {
      if (now - e.claimedNanos >= minAgeNanos
          && e.state.compareAndSet(State.UNWRITTEN, State.WRITING)) {
        due.add(new UnwrittenClaim(e.job.id(), e.job.attempt(), e.job.startedAt()));
      }
    }
    return due;
  }

  /** Claims written: ordinary attempts from now on. */
  public void written(Collection<UUID> ids) {
    for (UUID id : ids) {
      byJob.remove(id);
      letGo.add(id);
    }
  }

  /**
   * Claims whose write was refused (the job was cancelled, or the attempt rescued): no longer this
   * worker's; returns the jobs, for their handlers to be stopped.
   */
  public List<Job> refused(Collection<UUID> ids) {
    List<Job> jobs = new ArrayList<>();
    for (UUID id : ids) {
      Entry e = byJob.remove(id);
      if (e != null) {
        jobs.add(e.job);
      }
      letGo.add(id);
    }
    return jobs;
  }

  /** Claims whose write failed: unwritten still, written at a later pass. */
  public void notWritten(Collection<UUID> ids) {
    for (UUID id : ids) {
      Entry e = byJob.get(id);
      if (e != null) {
        e.state.compareAndSet(State.WRITING, State.UNWRITTEN);
      }
    }
  }

  /**
   * Of the jobs {@code ids} whose attempts ended, those whose claims are still unwritten, now
   * reserved for their end's write (the claim writer leaves them alone); waits for a claim write in
   * progress. An attempt already reserved by an earlier try of the same batch stays reserved.
   */
  public Set<UUID> takeForFinish(Collection<Attempt> attempts) {
    Set<UUID> unwritten = new HashSet<>();
    for (Attempt a : attempts) {
      UUID id = a.jobId();
      while (true) {
        Entry e = byJob.get(id);
        if (e == null || e.job.attempt() != a.attempt()) {
          break; // written, or the claim held is of another attempt of the job
        }
        State s = e.state.get();
        if (s == State.FINISHING
            || (s == State.UNWRITTEN && e.state.compareAndSet(State.UNWRITTEN, State.FINISHING))) {
          unwritten.add(id);
          break;
        }
        if (s == State.WRITING) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
      }
    }
    return unwritten;
  }

  /**
   * The attempt of job {@code jobId} ended: its claim is no longer written by the claim writer (its
   * end's batch writes claim and end together, however long the batch waits). A claim being written
   * now stays so; the end's batch waits for it ({@link #takeForFinish}).
   */
  public void ended(UUID jobId, int attempt) {
    Entry e = byJob.get(jobId);
    if (e != null && e.job.attempt() == attempt) {
      e.state.compareAndSet(State.UNWRITTEN, State.FINISHING);
    }
  }

  /** The ends of {@code attempts} were written or refused: their claims are no longer held. */
  public void finished(Collection<Attempt> attempts) {
    for (Attempt a : attempts) {
      Entry e = byJob.get(a.jobId());
      if (e != null && e.job.attempt() == a.attempt() && e.state.get() == State.FINISHING) {
        byJob.remove(a.jobId(), e);
        letGo.add(a.jobId());
      }
    }
  }

  /** The jobs to take out of the held-claims set since the last call. */
  public List<UUID> drainLetGo() {
    List<UUID> out = new ArrayList<>();
    for (UUID id; (id = letGo.poll()) != null; ) {
      out.add(id);
    }
    return out;
  }
}
