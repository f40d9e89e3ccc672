package io.punctual.worker.run;

import io.opentelemetry.context.Scope;
import io.punctual.handler.AttemptOutput;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.model.Completion;
import io.punctual.model.Job;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.trace.AttemptTracing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each claimed job on its own virtual thread: registers the attempt (so heartbeats cover it),
 * waits for the job's {@code runAt} if it was claimed ahead of it ({@code worker.claimAhead}), arms
 * its timeout, invokes the handler, decides the completion and hands it on.
 */
public final class JobExecutor {
  private static final Logger log = LoggerFactory.getLogger(JobExecutor.class);

  /** The error of an attempt handed back while its handler ignored its interruption. */
  static final String HANDED_BACK_IGNORING_INTERRUPT =
      "handed back: the handler ignored its interruption at the end of the shutdown grace";

  private final JobHandlers handlers;
  private final CompletionDecider decider;
  private final Tracking tracking;
  private final Ends ends;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Duration defaultTimeout;
  private final Clock clock;
  private final AttemptTimeouts timeouts;
  private final ThreadFactory threads = Thread.ofVirtual().name("punctual-job-", 0).factory();

  /**
   * Where attempts run: the registry of running attempts (which heartbeats cover), the timer that
   * interrupts an attempt at its timeout, the clock, the longest a namespace's attempt may run (its
   * quota's {@code maxTimeout}; null: no cap), its span, and where its progress and log lines go.
   */
  public record Tracking(
      RunningAttempts running,
      ScheduledExecutorService timeouts,
      Clock clock,
      Function<String, Duration> namespaceMaxTimeout,
      AttemptTracing tracing,
      AttemptOutput output) {

    /** Where handlers' progress and log lines go: nowhere ({@link AttemptOutput#NONE}). */
    public Tracking(
        RunningAttempts running,
        ScheduledExecutorService timeouts,
        Clock clock,
        Function<String, Duration> namespaceMaxTimeout,
        AttemptTracing tracing) {
      this(running, timeouts, clock, namespaceMaxTimeout, tracing, AttemptOutput.NONE);
    }

    /** Without spans ({@link AttemptTracing#off()}). */
    public Tracking(
        RunningAttempts running,
        ScheduledExecutorService timeouts,
        Clock clock,
        Function<String, Duration> namespaceMaxTimeout) {
      this(running, timeouts, clock, namespaceMaxTimeout, AttemptTracing.off());
    }
  }

  /**
   * Where a finished attempt goes: {@code finished} receives it (the completion batcher), then
   * {@code afterEach} runs on the job's thread, last (it frees the attempt's slot).
   */
  public record Ends(Consumer<FinishedAttempt> finished, Runnable afterEach) {}

  /**
   * @param settings the worker's id (in logs and results) and {@code defaultTimeout}
   */
  public JobExecutor(
      JobHandlers handlers,
      CompletionDecider decider,
      Tracking tracking,
      Ends ends,
      WorkerSettings settings,
      WorkerMetrics metrics) {
    this.handlers = handlers;
    this.decider = decider;
    this.tracking = tracking;
    this.ends = ends;
    this.clock = tracking.clock();
    this.metrics = metrics;
    this.workerId = settings.workerId;
    this.defaultTimeout = settings.defaultTimeout;
    this.timeouts = new AttemptTimeouts(tracking.timeouts(), tracking.running(), this::timedOut);
  }

  /**
   * Arms the timeout timers that are near ({@link AttemptTimeouts}); the worker runs it every
   * {@link AttemptTimeouts#SWEEP} on the executor the timers run on.
   */
  public void armNearTimeouts() {
    timeouts.runOnce();
  }

  /**
   * Starts the current attempt of a claimed job, now or, for a job claimed ahead of its due time,
   * at its {@code runAt} or at the start the claim gave it ({@code startedAt}: a rate limit's
   * reserved start), whichever is later, never before; returns at once.
   */
  public void start(Job job) {
    Duration timeout = timeoutOf(job);
    Instant now = clock.instant();
    Instant startAt = later(later(now, job.runAt()), job.startedAt());
    RunningAttempt attempt =
        new RunningAttempt(
            job,
            startAt,
            timeout == null ? null : startAt.plus(timeout),
            Duration.between(now, startAt));
    tracking.running().add(attempt);
    try {
      threads.newThread(() -> run(attempt, timeout)).start();
    } catch (RuntimeException | Error e) {
      tracking.running().remove(attempt);
      ends.afterEach().run();
      throw e;
    }
  }

  /**
   * The attempt's timeout: the job's own, else {@code worker.defaultTimeout}, and never longer than
   * its namespace's {@code maxTimeout}.
   */
  private Duration timeoutOf(Job job) {
    Duration timeout = job.timeout() != null ? job.timeout() : defaultTimeout;
    Duration cap = tracking.namespaceMaxTimeout().apply(job.namespace());
    if (cap != null && (timeout == null || cap.compareTo(timeout) < 0)) {
      return cap;
    }
    return timeout;
  }

  private static Instant later(Instant a, Instant b) {
    return b != null && b.isAfter(a) ? b : a;
  }

  private void run(RunningAttempt attempt, Duration timeout) {
    Job job = attempt.job();
    try (JobMdc mdc = JobMdc.of(job, workerId)) {
      awaitStart(attempt);
      runTraced(attempt, timeout);
    } catch (Throwable t) {
      log.error(
          "attempt could not be recorded job={} attempt={} worker={}",
          job.id(),
          job.attempt(),
          workerId,
          t);
    } finally {
      tracking.running().remove(attempt);
      ends.afterEach().run();
    }
  }

  /** The attempt within its span: the handler, then its completion decided and handed on. */
  private void runTraced(RunningAttempt attempt, Duration timeout) {
    Job job = attempt.job();
    try (AttemptTracing.AttemptSpan span = tracking.tracing().start(job)) {
      metrics.jobs.started(
          job.namespace(),
          job.type(),
          job.priority(),
          Duration.between(job.runAt(), clock.instant()));
      timeouts.started(attempt, timeout);
      JobHandler handler = handlers.find(job.type()).orElse(null);
      JobContext ctx =
          JobContext.of(
              job,
              attempt.deadline(),
              attempt::isStopped,
              clock,
              span.traceparent(),
              tracking.output());
      Outcome outcome;
      try (Scope current = span.makeCurrent()) {
        outcome = HandlerInvoker.invoke(attempt, handler, ctx, timeout);
      } finally {
        timeouts.ended(attempt);
      }
      long nanos = System.nanoTime() - attempt.startedNanos();
      metrics.execution.update(nanos, TimeUnit.NANOSECONDS);
      metrics.jobs.handlerRan(job.namespace(), job.type(), nanos);
      Completion completion = decider.decide(job, outcome, TimeUnit.NANOSECONDS.toMillis(nanos));
      if (log.isDebugEnabled()) { // its arguments cost an array, a boxing and a class name per job
        log.debug(
            "attempt ended job={} attempt={} worker={} type={} outcome={} next={}",
            job.id(),
            job.attempt(),
            workerId,
            job.type(),
            outcome.getClass().getSimpleName(),
            completion.nextState());
      }
      span.ended(
          completion.nextState().name().toLowerCase(java.util.Locale.ROOT),
          !(outcome instanceof Outcome.Succeeded));
      // Handed over before it leaves `running`, so that its lease is renewed without a gap until
      // its result is written. Unless the worker handed it back already (a handler that ignored
      // its interruption past the shutdown grace): the fence would refuse this result anyway.
      if (attempt.takeReport()) {
        ends.finished().accept(new FinishedAttempt(job, outcome, completion));
      } else {
        log.info(
            "result of a handed-back attempt dropped job={} attempt={} worker={} outcome={}",
            job.id(),
            job.attempt(),
            workerId,
            outcome.getClass().getSimpleName());
      }
    }
  }

  /**
   * Hands back the attempts of {@code stuck} whose handlers have not returned (they ignored the
   * interruption at the end of the shutdown grace): each is reported as handed back now, and its
   * handler's result, should it ever return, is dropped. Returns how many were handed back.
   */
  public int handBack(List<RunningAttempt> stuck) {
    int n = 0;
    for (RunningAttempt attempt : stuck) {
      if (!attempt.takeReport()) {
        continue;
      }
      Job job = attempt.job();
      long ms =
          Math.max(0, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - attempt.startedNanos()));
      Completion completion =
          CompletionDecider.handedBack(job, HANDED_BACK_IGNORING_INTERRUPT, clock.instant(), ms);
      ends.finished()
          .accept(
              new FinishedAttempt(
                  job, new Outcome.HandedBack(HANDED_BACK_IGNORING_INTERRUPT), completion));
      n++;
    }
    return n;
  }

  /**
   * Sleeps until the attempt's start (its {@code runAt}, for a job claimed ahead of it): one sleep
   * of at most {@code worker.claimAhead}. A stop meanwhile is seen when the handler is invoked.
   * Then records the real start (a sleep or a thread start that came late shows as lag).
   */
  private static void awaitStart(RunningAttempt attempt) {
    long wait = attempt.startedNanos() - System.nanoTime();
    if (wait > 0) {
      try {
        Thread.sleep(Duration.ofNanos(wait));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    attempt.markStarted();
  }

  /** A timer fired: the attempt is stopped as timed out (unless something stopped it first). */
  private void timedOut(RunningAttempt attempt) {
    if (attempt.stop(StopReason.TIMED_OUT)) {
      Job job = attempt.job();
      try (JobMdc mdc = JobMdc.of(job, workerId)) {
        log.info(
            "attempt timed out, interrupting job={} attempt={} worker={} timeout={}",
            job.id(),
            job.attempt(),
            workerId,
            attempt.timeout());
      }
    }
  }
}
