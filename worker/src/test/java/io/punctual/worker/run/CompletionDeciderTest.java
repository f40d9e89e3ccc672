package io.punctual.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.model.Backoff;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CompletionDeciderTest {
  private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
  private final CompletionDecider decider =
      new CompletionDecider(Clock.fixed(NOW, ZoneOffset.UTC), new SplittableRandom(1));
  private final Backoff intervals =
      new Backoff.Intervals(List.of(Duration.ofSeconds(5), Duration.ofSeconds(30)));

  private Job job(int attempt, int maxAttempts) {
    return TestJobs.running(
        "x", JsonNodeFactory.instance.objectNode(), attempt, maxAttempts, intervals, null);
  }

  @Test
  void successFinishesTheJobWithItsResult() {
    var result = JsonNodeFactory.instance.objectNode().put("ok", true);
    Completion c = decider.decide(job(1, 3), new Outcome.Succeeded(result), 12);

    assertThat(c.nextState()).isEqualTo(JobState.SUCCEEDED);
    assertThat(c.executionStatus()).isEqualTo(ExecutionStatus.SUCCEEDED);
    assertThat(c.result()).isEqualTo(result);
    assertThat(c.finishedAt()).isEqualTo(NOW);
    assertThat(c.durationMs()).isEqualTo(12);
    assertThat(c.nextRunAt()).isNull();
  }

  @Test
  void retryableFailureWithAttemptsLeftIsRetriedAfterTheBackoffOfThatAttempt() {
    Completion first = decider.decide(job(1, 3), Outcome.Failed.retryable("boom"), 1);
    Completion second = decider.decide(job(2, 3), Outcome.Failed.retryable("boom"), 1);

    assertThat(first.nextState()).isEqualTo(JobState.PENDING);
    assertThat(first.executionStatus()).isEqualTo(ExecutionStatus.FAILED);
    assertThat(first.nextRunAt()).isEqualTo(NOW.plusSeconds(5));
    assertThat(first.error()).isEqualTo("boom");
    assertThat(second.nextRunAt()).isEqualTo(NOW.plusSeconds(30));
  }

  @Test
  void anAttemptHandedBackIsPendingAtOnceEvenOnItsLastAttempt() {
    Completion c = decider.decide(job(3, 3), new Outcome.HandedBack("handed back"), 40);

    assertThat(c.nextState()).isEqualTo(JobState.PENDING);
    assertThat(c.executionStatus()).isEqualTo(ExecutionStatus.HANDED_BACK);
    assertThat(c.nextRunAt()).isEqualTo(NOW);
    assertThat(c.error()).isEqualTo("handed back");
    assertThat(c.durationMs()).isEqualTo(40);
  }

  @Test
  void exhaustedAttemptsFailTheJob() {
    Completion c = decider.decide(job(3, 3), Outcome.Failed.retryable("boom"), 1);

    assertThat(c.nextState()).isEqualTo(JobState.FAILED);
    assertThat(c.executionStatus()).isEqualTo(ExecutionStatus.FAILED);
    assertThat(c.nextRunAt()).isNull();
  }

  @Test
  void nonRetryableFailureFailsTheJobAtOnce() {
    Completion c = decider.decide(job(1, 5), Outcome.Failed.permanent("bad input"), 1);

    assertThat(c.nextState()).isEqualTo(JobState.FAILED);
    assertThat(c.error()).isEqualTo("bad input");
  }

  @Test
  void retryAfterLongerThanTheBackoffWins() {
    Outcome longer = new Outcome.Failed(true, Duration.ofMinutes(2), "429", null);
    Outcome shorter = new Outcome.Failed(true, Duration.ofSeconds(1), "429", null);

    assertThat(decider.decide(job(1, 3), longer, 1).nextRunAt()).isEqualTo(NOW.plusSeconds(120));
    assertThat(decider.decide(job(1, 3), shorter, 1).nextRunAt()).isEqualTo(NOW.plusSeconds(5));
  }

  @Test
  void timeoutIsRetryableAndRecordedAsTimedOut() {
    Outcome timedOut = new Outcome.TimedOut(Duration.ofSeconds(2));
    Completion retried = decider.decide(job(1, 2), timedOut, 2000);
    Completion last = decider.decide(job(2, 2), timedOut, 2000);

    assertThat(retried.nextState()).isEqualTo(JobState.PENDING);
    assertThat(retried.executionStatus()).isEqualTo(ExecutionStatus.TIMED_OUT);
    assertThat(retried.error()).contains("timed out after PT2S");
    assertThat(last.nextState()).isEqualTo(JobState.FAILED);
    assertThat(last.executionStatus()).isEqualTo(ExecutionStatus.TIMED_OUT);
  }

  @Test
  void cancelRecordsACancelledExecution() {
    Completion c = decider.decide(job(1, 3), new Outcome.Cancelled(), 5);

    assertThat(c.nextState()).isEqualTo(JobState.CANCELLED);
    assertThat(c.executionStatus()).isEqualTo(ExecutionStatus.CANCELLED);
  }

  @Test
  void exponentialBackoffGrowsWithTheAttemptNumber() {
    Backoff exp = new Backoff.Exponential(Duration.ofSeconds(1), 2.0, Duration.ofHours(1), 0.0);
    Job third = TestJobs.running("x", JsonNodeFactory.instance.objectNode(), 3, 5, exp, null);

    Completion c = decider.decide(third, Outcome.Failed.retryable("x"), 1);

    assertThat(c.nextRunAt()).isEqualTo(NOW.plusSeconds(4));
  }
}
