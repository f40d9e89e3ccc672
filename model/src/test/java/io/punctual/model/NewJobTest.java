package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NewJobTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private final JobLinks links = new JobLinks(UUID.randomUUID(), null);
  private final NewJob job =
      new NewJob(
          "ns",
          "report",
          NODES.objectNode().put("customer", 42),
          Instant.parse("2030-01-01T09:00:00.123Z"),
          Priority.HIGH,
          5,
          new Backoff.Fixed(Duration.ofSeconds(30)),
          Duration.ofMinutes(2),
          "idem-1",
          "hash-1",
          List.of("a", "b"),
          NODES.objectNode().put("url", "https://example.com/hook"),
          links,
          "key-1",
          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");

  @Test
  void eachWitherChangesItsFieldAndKeepsEveryOther() {
    JobLinks other = new JobLinks(null, UUID.randomUUID());

    assertThat(job.withLinks(other))
        .usingRecursiveComparison()
        .ignoringFields("links")
        .isEqualTo(job);
    assertThat(job.withLinks(other).links()).isEqualTo(other);
    assertThat(job.withConcurrencyKey("key-2"))
        .usingRecursiveComparison()
        .ignoringFields("concurrencyKey")
        .isEqualTo(job);
    assertThat(job.withConcurrencyKey("key-2").concurrencyKey()).isEqualTo("key-2");
    assertThat(job.withConcurrencyKey(null).concurrencyKey()).isNull();
  }

  @Test
  void withersOfTheSameValuesGiveAnEqualJob() {
    assertThat(job.withLinks(links).withConcurrencyKey("key-1")).isEqualTo(job);
  }

  @Test
  void theBuilderHoldsEveryFieldAndToBuilderGivesThemBack() {
    assertThat(job.toBuilder().build()).isEqualTo(job);
    assertThat(job.toBuilder().type("other").maxAttempts(1).build())
        .usingRecursiveComparison()
        .ignoringFields("type", "maxAttempts")
        .isEqualTo(job);
  }

  @Test
  void theBuilderDefaultsToAPlainJob() {
    Instant at = Instant.parse("2030-01-01T09:00:00Z");
    NewJob plain = NewJob.builder("ns", "noop", at).build();

    assertThat(plain.payload()).isEqualTo(NODES.objectNode());
    assertThat(plain.priority()).isEqualTo(Priority.NORMAL);
    assertThat(plain.maxAttempts()).isEqualTo(1);
    assertThat(plain.backoff()).isEqualTo(Backoff.DEFAULT);
    assertThat(plain.tags()).isEmpty();
    assertThat(plain.links()).isEqualTo(JobLinks.NONE);
    assertThat(plain.timeout()).isNull();
    assertThat(plain.idempotencyKey()).isNull();
    assertThat(plain.concurrencyKey()).isNull();
  }
}
