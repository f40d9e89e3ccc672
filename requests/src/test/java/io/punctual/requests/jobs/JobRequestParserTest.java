package io.punctual.requests.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.requests.FieldError;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.JobFields;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobRequestParserTest {
  /** The API's default limits (api.* settings). */
  static final SubmitLimits LIMITS =
      new SubmitLimits(
          new JobFields.Rules(262_144, Priority.NORMAL, 3, 100, Backoff.DEFAULT), 1000, 10_000);

  private final JobRequestParser parser = new JobRequestParser(LIMITS);
  private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");

  @Test
  void appliesDefaultsAndResolvesADelay() {
    NewJob job = parse("{'type':'t','delay':'PT90S'}").toNewJob("ns", NOW);

    assertThat(job.namespace()).isEqualTo("ns");
    assertThat(job.runAt()).isEqualTo(NOW.plusSeconds(90));
    assertThat(job.priority()).isEqualTo(Priority.NORMAL);
    assertThat(job.maxAttempts()).isEqualTo(3);
    assertThat(job.backoff()).isEqualTo(Backoff.DEFAULT);
    assertThat(job.payload().isObject()).isTrue();
    assertThat(job.requestHash()).isNull();
  }

  @Test
  void readsEveryBackoffStrategy() {
    assertThat(parse("{'type':'t','backoff':{'strategy':'exponential','factor':3}}").backoff())
        .isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), 3.0, Duration.ofHours(1), 0.2));
    assertThat(parse("{'type':'t','backoff':{'strategy':'fixed','delay':'PT30S'}}").backoff())
        .isEqualTo(new Backoff.Fixed(Duration.ofSeconds(30)));
    assertThat(
            parse("{'type':'t','backoff':{'strategy':'intervals','intervals':['PT1M','PT5M']}}")
                .backoff())
        .isEqualTo(new Backoff.Intervals(List.of(Duration.ofMinutes(1), Duration.ofMinutes(5))));
  }

  @Test
  void theRequestHashIgnoresKeyOrderFormattingAndExplicitDefaults() {
    String a = hash("{'type':'t','idempotencyKey':'k','payload':{'a':1,'b':[1,{'x':1,'y':2}]}}");
    String b =
        hash(
            "{ 'payload' : {'b':[1,{'y':2,'x':1}],'a':1}, 'idempotencyKey':'k', 'type':'t',"
                + " 'priority':'NORMAL', 'maxAttempts':3,"
                + " 'backoff':{'strategy':'exponential'} }");
    String c = hash("{'type':'t','idempotencyKey':'k','payload':{'a':2,'b':[1,{'x':1,'y':2}]}}");
    String d = hash("{'type':'t','idempotencyKey':'k','payload':{'a':1,'b':[{'x':1,'y':2},1]}}");

    assertThat(a).hasSize(64).isEqualTo(b);
    assertThat(c).isNotEqualTo(a);
    assertThat(d).isNotEqualTo(a);
  }

  @Test
  void aDelayIsHashedAsGivenSoARetryLaterStillMatches() {
    String body = "{'type':'t','idempotencyKey':'k','delay':'PT1M'}";

    NewJob first = parse(body).toNewJob("ns", NOW);
    NewJob retry = parse(body).toNewJob("ns", NOW.plusSeconds(5));

    assertThat(retry.requestHash()).isEqualTo(first.requestHash());
    assertThat(hash("{'type':'t','idempotencyKey':'k','delay':'PT60S'}"))
        .isEqualTo(first.requestHash());
  }

  @Test
  void namesTheFieldsOfBatchItems() {
    JsonNode body = json("{'jobs':[{'type':'ok'},{'type':'x','callback':{'url':'mailto:a@b'}}]}");

    assertThatThrownBy(() -> parser.parseBatch(body))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e ->
                assertThat(e.errors())
                    .extracting(FieldError::field)
                    .containsExactly("jobs[1].callback.url"));
  }

  @Test
  void unknownFieldsInsideObjectsAreNamed() {
    assertThatThrownBy(
            () -> parse("{'type':'t','backoff':{'strategy':'fixed','delay':'PT1S','max':1}}"))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e -> assertThat(e.errors().get(0).field()).isEqualTo("backoff.max"));
  }

  private ValidatedJob parse(String body) {
    return parser.parseOne(json(body));
  }

  private String hash(String body) {
    return parse(body).toNewJob("ns", NOW).requestHash();
  }

  private static JsonNode json(String body) {
    return Json.readTree(body.replace('\'', '"'));
  }
}
