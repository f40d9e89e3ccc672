package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Job;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.run.TestJobs;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BuiltInHandlersTest {
  private final JobHandlers handlers =
      JobHandlers.withBuiltIns(new WorkerSettings(), Clock.systemUTC(), TestSigning.PUBLIC_ONLY);

  private static JobContext ctx(String type, String payload, int attempt) {
    Job job = TestJobs.running(type, payload, attempt, 5);
    return JobContext.of(job, null, () -> false, Clock.systemUTC());
  }

  private JobHandler handler(String type) {
    return handlers.find(type).orElseThrow();
  }

  @Test
  void registryHasTheBuiltInsAndServiceLoadedHandlers() {
    assertThat(handlers.types()).contains("noop", "sleep", "fail", "http", "echo");
    assertThat(handlers.find("nope")).isEmpty();
  }

  @Test
  void theDescriptionNamesTheBuiltInsAndEachCustomHandlerWithItsOrigin() {
    String described = handlers.describe();

    assertThat(described)
        .startsWith("built-in: fail, http, noop, sleep; custom: ")
        .contains("echo (" + EchoHandler.class.getName() + " from file:");
    assertThat(new JobHandlers().register(new EchoHandler()).describe())
        .isEqualTo(
            "built-in: none; custom: echo ("
                + EchoHandler.class.getName()
                + " from "
                + EchoHandler.class.getProtectionDomain().getCodeSource().getLocation()
                + ")");
  }

  @Test
  void aCustomHandlerReplacingABuiltInCountsAsCustom() {
    JobHandlers replaced =
        JobHandlers.withBuiltIns(new WorkerSettings(), Clock.systemUTC(), TestSigning.PUBLIC_ONLY);
    replaced.register(
        new JobHandler() {
          @Override
          public String type() {
            return "noop";
          }

          @Override
          public JobResult handle(JobContext context) {
            return JobResult.success();
          }
        });

    assertThat(replaced.describe())
        .startsWith("built-in: fail, http, sleep; custom: echo (")
        .contains(", noop (");
  }

  @Test
  void noopSucceeds() throws Exception {
    assertThat(handler("noop").handle(ctx("noop", "{}", 1))).isEqualTo(JobResult.success());
  }

  @Test
  void sleepSleepsTheGivenMilliseconds() throws Exception {
    long start = System.nanoTime();
    handler("sleep").handle(ctx("sleep", "{\"ms\": 50}", 1));
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(50);
  }

  @Test
  void sleepIsInterruptible() throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean done = new AtomicBoolean();
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    handler("sleep").handle(ctx("sleep", "{\"ms\": 60000}", 1));
                  } catch (Throwable e) {
                    thrown.set(e);
                  }
                  done.set(true);
                });
    t.interrupt();
    t.join(2_000);

    assertThat(done).isTrue();
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void sleepWithoutMsIsABadJob() {
    assertThatThrownBy(() -> handler("sleep").handle(ctx("sleep", "{}", 1)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("payload.ms");
  }

  @Test
  void failFailsTheFirstTimesAttemptsThenSucceeds() throws Exception {
    JobHandler fail = handler("fail");
    assertThatThrownBy(() -> fail.handle(ctx("fail", "{\"times\": 2}", 1)))
        .hasMessageContaining("attempt 1");
    assertThatThrownBy(() -> fail.handle(ctx("fail", "{\"times\": 2}", 2)))
        .hasMessageContaining("attempt 2");
    assertThat(fail.handle(ctx("fail", "{\"times\": 2}", 3))).isEqualTo(JobResult.success());
    assertThatThrownBy(() -> fail.handle(ctx("fail", "{}", 4)))
        .hasMessageContaining("every attempt");
  }

  @Test
  void idempotencyKeyIsTheJobsOwnOrStablePerJob() {
    Job job = TestJobs.running("noop", "{}", 1, 3);
    JobContext first = JobContext.of(job, null, () -> false, Clock.systemUTC());
    JobContext again =
        JobContext.of(TestJobs.withAttempt(job, 2), null, () -> false, Clock.systemUTC());

    assertThat(first.idempotencyKey()).isEqualTo("punctual:" + job.id());
    assertThat(again.idempotencyKey()).isEqualTo(first.idempotencyKey());
  }
}
