package io.punctual.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import org.junit.jupiter.api.Test;

class StorableTextTest {
  private static final String NUL = "must not contain a NUL character (U+0000)";

  @Test
  void plainTextAndSurrogatePairsAreTaken() {
    assertThat(StorableText.problem("")).isEmpty();
    assertThat(StorableText.problem("héllo wörld \t\n")).isEmpty();
    assertThat(StorableText.problem("\uD83D\uDE00")).isEmpty();
    assertThat(StorableText.problem("a\uD83D\uDE00b\uDBFF\uDFFF")).isEmpty();
  }

  @Test
  void aNulAnywhereIsRefusedTrailingOneIncluded() {
    assertThat(StorableText.problem("\u0000")).contains(NUL);
    assertThat(StorableText.problem("a\u0000b")).contains(NUL);
    assertThat(StorableText.problem("abc\u0000")).contains(NUL);
  }

  @Test
  void aLoneSurrogateIsRefusedAndNamed() {
    assertThat(StorableText.problem("\uD800"))
        .contains("must not contain a lone UTF-16 surrogate (U+D800)");
    assertThat(StorableText.problem("a\uDC00")).get().asString().contains("U+DC00");
    assertThat(StorableText.problem("\uDE00\uD83D")).get().asString().contains("U+DE00");
    assertThat(StorableText.problem("\uD83D\uD83D\uDE00")).get().asString().contains("U+D83D");
    assertThat(StorableText.problem("\uD83D\uDE00\uDE00")).get().asString().contains("U+DE00");
  }

  @Test
  void printableSpellsTheBadCharactersAsEscapesAndKeepsTheRest() {
    assertThat(StorableText.printable("plain")).isEqualTo("plain");
    assertThat(StorableText.printable("a\u0000b")).isEqualTo("a\\u0000b");
    assertThat(StorableText.printable("\uD800\uD83D\uDE00")).isEqualTo("\\ud800\uD83D\uDE00");
  }

  @Test
  void theWalkNamesEveryValueAndNameByItsPath() throws Exception {
    JsonNode body =
        Json.mapper()
            .readTree(
                """
                {"type": "a\\u0000", "ok": "\\ud83d\\ude00", "tags": ["x", "\\ud800"],
                 "payload": {"customer": {"name": "Ann\\u0000", "na\\u0000me": 1},
                             "items": [1, {"x": ["\\udc00"]}]}}
                """);
    Violations violations = new Violations();

    StorableText.check(body, "", violations);

    assertThatThrownBy(violations::throwIfAny)
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e ->
                assertThat(e.errors())
                    .extracting(FieldError::field)
                    .containsExactly(
                        "type",
                        "tags[1]",
                        "payload.customer.name",
                        "payload.customer.na\\u0000me",
                        "payload.items[1].x[0]"));
  }

  @Test
  void theWalkPrefixesThePathItIsGiven() throws Exception {
    JsonNode body = Json.mapper().readTree("{\"name\": \"\\u0000\"}");

    assertThatThrownBy(() -> StorableText.require(body, "schedules[2]"))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e -> assertThat(e.errors().get(0).field()).isEqualTo("schedules[2].name"));
  }

  @Test
  void aNumberBeyondADoubleIsRefusedWhereverItIs() throws Exception {
    JsonNode body =
        Json.mapper().readTree("{\"payload\": {\"n\": 1e400, \"m\": [-1e400]}, \"p\": 1e400}");

    assertThatThrownBy(() -> StorableText.require(body, ""))
        .isInstanceOfSatisfying(
            InvalidFieldsException.class,
            e ->
                assertThat(e.errors())
                    .extracting(FieldError::field)
                    .containsExactly("payload.n", "payload.m[0]", "p"));
  }

  @Test
  void largeButFiniteNumbersPass() throws Exception {
    JsonNode body =
        Json.mapper()
            .readTree("{\"a\": 1e308, \"b\": -0, \"c\": 9223372036854775808, \"d\": 1e-400}");

    assertThatCode(() -> StorableText.require(body, "")).doesNotThrowAnyException();
  }

  @Test
  void aBodyWithOnlyTakenTextPasses() throws Exception {
    JsonNode body =
        Json.mapper().readTree("{\"a\": [\"\\ud83d\\ude00\", 1, null, true, {\"b\": \"c\"}]}");

    assertThatCode(() -> StorableText.require(body, "")).doesNotThrowAnyException();
  }
}
