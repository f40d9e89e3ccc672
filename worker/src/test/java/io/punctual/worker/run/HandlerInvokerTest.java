package io.punctual.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.handler.FollowUp;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.handler.RetryAfterException;
import io.punctual.model.Job;
import io.punctual.model.RunCondition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HandlerInvokerTest {
  private final Job job = TestJobs.running("t", "{}", 1, 3);

  private Outcome invoke(RunningAttempt attempt, JobHandler handler) {
    JobContext ctx = JobContext.of(job, null, attempt::isStopped, Clock.systemUTC());
    return HandlerInvoker.invoke(attempt, handler, ctx, Duration.ofSeconds(1));
  }

  private static JobHandler handler(Body body) {
    return new JobHandler() {
      @Override
      public String type() {
        return "t";
      }

      @Override
      public JobResult handle(JobContext ctx) throws Exception {
        return body.run(ctx);
      }
    };
  }

  interface Body {
    JobResult run(JobContext ctx) throws Exception;
  }

  @Test
  void missingHandlerFailsPermanentlyNamingTheType() {
    Outcome o = invoke(new RunningAttempt(job, Instant.now(), null), null);

    assertThat(o).isEqualTo(Outcome.Failed.permanent("no handler for type t"));
  }

  @Test
  void exceptionsAreClassified() {
    RunningAttempt a = new RunningAttempt(job, Instant.now(), null);
    assertThat(
            invoke(
                a,
                handler(
                    c -> {
                      throw new NonRetryableException("nope");
                    })))
        .isInstanceOfSatisfying(
            Outcome.Failed.class,
            f -> {
              assertThat(f.retryable()).isFalse();
              assertThat(f.error()).isEqualTo("nope");
              assertThat(f.stackTrace()).contains("NonRetryableException");
            });
    assertThat(
            invoke(
                a,
                handler(
                    c -> {
                      throw new RetryAfterException(Duration.ofSeconds(9), "later");
                    })))
        .isInstanceOfSatisfying(
            Outcome.Failed.class,
            f -> {
              assertThat(f.retryable()).isTrue();
              assertThat(f.retryAfter()).isEqualTo(Duration.ofSeconds(9));
            });
    assertThat(
            invoke(
                a,
                handler(
                    c -> {
                      throw new IllegalStateException("oops");
                    })))
        .isInstanceOfSatisfying(
            Outcome.Failed.class,
            f -> {
              assertThat(f.retryable()).isTrue();
              assertThat(f.error()).isEqualTo("java.lang.IllegalStateException: oops");
            });
  }

  @Test
  void anInvalidFollowUpFailsTheAttemptForGood() {
    RunningAttempt a = new RunningAttempt(job, Instant.now(), null);
    Outcome o =
        invoke(
            a,
            handler(
                c -> {
                  c.spawn(FollowUp.of("next").after(0, RunCondition.ON_SUCCESS));
                  return JobResult.success();
                }));

    assertThat(o)
        .isInstanceOfSatisfying(
            Outcome.Failed.class,
            f -> {
              assertThat(f.retryable()).as("every retry would spawn the same").isFalse();
              assertThat(f.error())
                  .isEqualTo(
                      "invalid follow-up: follow-up 0 waits for follow-up 0:"
                          + " a follow-up may wait only for an earlier one");
              assertThat(f.stackTrace()).contains("InvalidFollowUpException");
            });
  }

  @Test
  void stoppingInterruptsTheHandlerAndNamesWhy() throws Exception {
    for (StopReason reason : StopReason.values()) {
      RunningAttempt a = new RunningAttempt(job, Instant.now(), null);
      CountDownLatch started = new CountDownLatch(1);
      AtomicReference<Outcome> outcome = new AtomicReference<>();
      AtomicReference<Boolean> sawCancel = new AtomicReference<>();
      Thread t =
          Thread.ofVirtual()
              .start(
                  () ->
                      outcome.set(
                          invoke(
                              a,
                              handler(
                                  c -> {
                                    started.countDown();
                                    try {
                                      Thread.sleep(30_000);
                                    } finally {
                                      sawCancel.set(c.isCancelled());
                                    }
                                    return JobResult.success();
                                  }))));
      started.await();
      a.stop(reason);
      t.join(5_000);

      assertThat(sawCancel.get()).isTrue();
      Outcome expected =
          switch (reason) {
            case CANCELLED -> new Outcome.Cancelled();
            case TIMED_OUT -> new Outcome.TimedOut(Duration.ofSeconds(1));
            case SHUTDOWN -> new Outcome.HandedBack(HandlerInvoker.HANDED_BACK_AT_GRACE_END);
          };
      assertThat(outcome.get()).isEqualTo(expected);
    }
  }

  @Test
  void aHandlerThatReturnsAfterItsTimeoutStillTimedOut() {
    RunningAttempt a = new RunningAttempt(job, Instant.now(), null);
    Outcome o =
        invoke(
            a,
            handler(
                c -> {
                  a.stop(StopReason.TIMED_OUT);
                  Thread.interrupted();
                  return JobResult.success();
                }));

    assertThat(o).isInstanceOf(Outcome.TimedOut.class);
  }

  @Test
  void aHandlerThatReturnsDespiteACancelReportsItsSuccess() {
    RunningAttempt a = new RunningAttempt(job, Instant.now(), null);
    Outcome o =
        invoke(
            a,
            handler(
                c -> {
                  a.stop(StopReason.CANCELLED);
                  Thread.interrupted();
                  return JobResult.success();
                }));

    assertThat(o).isEqualTo(new Outcome.Succeeded(null));
  }

  @Test
  void anAttemptStoppedBeforeItsStartNeverRunsItsHandler() {
    AtomicInteger calls = new AtomicInteger();
    JobHandler counting =
        handler(
            c -> {
              calls.incrementAndGet();
              return JobResult.success();
            });
    RunningAttempt cancelled = new RunningAttempt(job, Instant.now(), null);
    cancelled.stop(StopReason.CANCELLED);
    RunningAttempt shutDown = new RunningAttempt(job, Instant.now(), null);
    shutDown.stop(StopReason.SHUTDOWN);

    assertThat(invoke(cancelled, counting)).isInstanceOf(Outcome.Cancelled.class);
    assertThat(invoke(shutDown, counting)).isInstanceOf(Outcome.HandedBack.class);
    assertThat(calls).hasValue(0);
  }
}
