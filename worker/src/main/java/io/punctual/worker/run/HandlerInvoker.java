package io.punctual.worker.run;

import io.punctual.handler.InvalidFollowUpException;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.handler.RetryAfterException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

/** Runs a handler on the current thread and says how the attempt ended. */
public final class HandlerInvoker {
  static final int MAX_STACK_CHARS = 16_000;

  /** The error of an attempt handed back because the worker's shutdown grace ended. */
  public static final String HANDED_BACK_AT_GRACE_END =
      "handed back: the worker's shutdown grace ended before the handler";

  private HandlerInvoker() {}

  /**
   * Runs {@code handler} (null: no handler for the job's type) for {@code attempt}. The attempt is
   * bound to the current thread meanwhile, so stopping it interrupts the handler.
   */
  public static Outcome invoke(
      RunningAttempt attempt, JobHandler handler, JobContext ctx, Duration timeout) {
    if (handler == null) {
      return Outcome.Failed.permanent("no handler for type " + attempt.job().type());
    }
    StopReason early = attempt.stopReason();
    if (early != null) {
      // Stopped while it waited for its runAt (claimed ahead): the handler never runs.
      return switch (early) {
        case CANCELLED -> new Outcome.Cancelled();
        case TIMED_OUT -> new Outcome.TimedOut(timeout);
        case SHUTDOWN -> new Outcome.HandedBack("handed back: worker stopped before the start");
      };
    }
    attempt.bindTo(Thread.currentThread());
    try {
      JobResult result = handler.handle(ctx);
      if (attempt.stopReason() == StopReason.TIMED_OUT) {
        return new Outcome.TimedOut(timeout);
      }
      return new Outcome.Succeeded(result == null ? null : result.result(), ctx.spawned());
    } catch (Throwable t) {
      StopReason reason = attempt.stopReason();
      if (reason == null) {
        return classify(t);
      }
      return switch (reason) {
        case CANCELLED -> new Outcome.Cancelled();
        case TIMED_OUT -> new Outcome.TimedOut(timeout);
        case SHUTDOWN -> new Outcome.HandedBack(HANDED_BACK_AT_GRACE_END);
      };
    } finally {
      attempt.unbind();
      Thread.interrupted();
    }
  }

  /** The outcome of a handler that threw {@code t} without anyone asking it to stop. */
  static Outcome.Failed classify(Throwable t) {
    return switch (t) {
      case NonRetryableException e -> new Outcome.Failed(false, null, message(e), stackTrace(e));
      case InvalidFollowUpException e ->
          new Outcome.Failed(false, null, "invalid follow-up: " + message(e), stackTrace(e));
      case RetryAfterException e ->
          new Outcome.Failed(true, e.retryAfter(), message(e), stackTrace(e));
      default -> new Outcome.Failed(true, null, t.toString(), stackTrace(t));
    };
  }

  private static String message(Throwable t) {
    return t.getMessage() == null ? t.getClass().getName() : t.getMessage();
  }

  static String stackTrace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    String s = out.toString();
    return s.length() > MAX_STACK_CHARS ? s.substring(0, MAX_STACK_CHARS) + "\n\t..." : s;
  }
}
