package io.punctual.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.api.config.AllowedHosts;
import io.punctual.api.problem.Problem;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LocalOriginFilterTest {
  private final LocalOriginFilter filter =
      new LocalOriginFilter(AllowedHosts.NONE, new ObjectMapper());

  private Optional<Problem> refusal(String method, List<String> hosts, String contentType) {
    return filter.refusal(method, hosts, contentType, "127.0.0.1", 8080, false);
  }

  @Test
  void readsAreNeverRefused() {
    for (String method : List.of("GET", "HEAD", "OPTIONS")) {
      assertThat(refusal(method, List.of("evil.example"), null)).as(method).isEmpty();
    }
  }

  @Test
  void aChangeUnderAForeignHostIsA403NamingHost() {
    for (String method : List.of("POST", "PUT", "PATCH", "DELETE", "post")) {
      Problem problem =
          refusal(method, List.of("evil.example:8080"), "application/json").orElseThrow();
      assertThat(problem.status()).isEqualTo(403);
      assertThat(problem.field()).isEqualTo("Host");
      assertThat(problem.type()).endsWith("/foreign-host");
      assertThat(problem.detail()).doesNotContain("evil");
    }
    assertThat(refusal("POST", List.of(), "application/json").orElseThrow().field())
        .isEqualTo("Host");
    assertThat(
            refusal("POST", List.of("localhost:8080", "localhost:8080"), "application/json")
                .orElseThrow()
                .field())
        .as("two Host headers")
        .isEqualTo("Host");
  }

  @ParameterizedTest(name = "[{index}] '{0}'")
  @ValueSource(
      strings = {
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/json",
        "application/jsonx",
        "application/json-seq",
        "application/+json",
        "application/a b+json",
        "application/x/y+json",
        "*/*",
        ""
      })
  void aChangeThatIsNotJsonIsA415NamingContentType(String contentType) {
    Problem problem = refusal("POST", List.of("localhost:8080"), contentType).orElseThrow();
    assertThat(problem.status()).isEqualTo(415);
    assertThat(problem.field()).isEqualTo("Content-Type");
  }

  @Test
  void aChangeWithoutAContentTypeIsA415() {
    assertThat(refusal("DELETE", List.of("localhost:8080"), null).orElseThrow().status())
        .isEqualTo(415);
  }

  @ParameterizedTest(name = "[{index}] '{0}'")
  @ValueSource(
      strings = {
        "application/json",
        "Application/JSON",
        "application/json; charset=utf-8",
        "application/merge-patch+json",
        "application/problem+json;charset=UTF-8"
      })
  void aJsonChangeUnderThisServersHostIsTaken(String contentType) {
    assertThat(refusal("POST", List.of("localhost:8080"), contentType)).isEmpty();
    assertThat(refusal("DELETE", List.of("[::1]:8080"), contentType)).isEmpty();
  }

  @Test
  void theHostIsJudgedBeforeTheContentType() {
    assertThat(refusal("POST", List.of("evil.example"), "text/plain").orElseThrow().status())
        .isEqualTo(403);
  }
}
