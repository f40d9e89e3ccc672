package io.punctual.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffParserTest {
  private static Backoff parse(String json) throws Exception {
    Violations violations = new Violations();
    Backoff backoff = BackoffParser.parse(Json.mapper().readTree(json), "backoff", violations);
    violations.throwIfAny();
    return backoff;
  }

  private static InvalidFieldsException errors(String json) {
    try {
      parse(json);
    } catch (InvalidFieldsException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no error for " + json);
  }

  @Test
  void anEmptyBackoffIsTheDocumentedDefault() throws Exception {
    assertThat(parse("{}")).isEqualTo(Backoff.DEFAULT);
    assertThat(parse("{\"strategy\":null}")).isEqualTo(Backoff.DEFAULT);
  }

  @Test
  void leftOutFieldsTakeTheDocumentedDefaults() throws Exception {
    assertThat(parse("{\"factor\":3.0}"))
        .isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), 3.0, Duration.ofHours(1), 0.2));
    assertThat(parse("{\"strategy\":\"exponential\",\"maxDelay\":\"PT5M\",\"jitter\":0}"))
        .isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), 0.0));
  }

  @Test
  void aFactorGivenAsAStringNamesTheFactor() {
    assertThat(errors("{\"factor\":\"2.0\"}").errors())
        .containsExactly(new FieldError("backoff.factor", "must be a number"));
  }

  @Test
  void everyBadFieldIsNamedAtOnce() {
    assertThat(
            errors(
                    "{\"initialDelay\":\"PT1M\",\"maxDelay\":\"PT1S\",\"factor\":\"2.0\","
                        + "\"jitter\":2,\"delay\":\"PT1S\"}")
                .errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder(
            "backoff.delay", "backoff.factor", "backoff.jitter", "backoff.maxDelay");
    assertThat(errors("{\"strategy\":\"fixed\",\"delay\":\"x\",\"factor\":2}").errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder("backoff.factor", "backoff.delay");
  }

  @Test
  void otherStrategiesStillNeedTheirFields() {
    assertThat(errors("{\"strategy\":\"fixed\"}").errors())
        .extracting(FieldError::field)
        .containsExactly("backoff.delay");
    assertThat(errors("{\"strategy\":\"intervals\"}").errors())
        .extracting(FieldError::field)
        .containsExactly("backoff.intervals");
    assertThat(errors("{\"strategy\":\"linear\"}").errors())
        .extracting(FieldError::field)
        .containsExactly("backoff.strategy");
  }

  @Test
  void aBackoffThatIsNotAnObjectIsNamed() {
    assertThatThrownBy(() -> parse("[]"))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e -> assertThat(e.errors().get(0).field()).isEqualTo("backoff"));
  }

  @Test
  void durationsOverAThousandYearsAreRefusedAndNamed() {
    assertThat(errors("{\"initialDelay\":\"PT9223372036854775807S\"}").errors())
        .extracting(FieldError::field)
        .containsExactly("backoff.initialDelay");
    assertThat(errors("{\"strategy\":\"fixed\",\"delay\":\"P365000DT1S\"}").errors())
        .extracting(FieldError::message)
        .containsExactly(Fields.TOO_LONG);
    assertThat(
            errors("{\"strategy\":\"intervals\",\"intervals\":[\"PT1S\",\"P9999999999D\"]}")
                .errors())
        .extracting(FieldError::field)
        .containsExactly("backoff.intervals[1]");
  }

  @Test
  void aThousandYearsIsTaken() throws Exception {
    assertThat(parse("{\"strategy\":\"fixed\",\"delay\":\"P365000D\"}"))
        .isEqualTo(new Backoff.Fixed(Duration.ofDays(365_000)));
  }
}
