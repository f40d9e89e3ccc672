package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.worker.handler.http.RetryAfter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void secondsAndHttpDatesAreUnderstood() {
    assertThat(RetryAfter.parse("120", NOW)).contains(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse(" 7 ", NOW)).contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse("Tue, 01 Jan 2030 00:01:30 GMT", NOW))
        .contains(Duration.ofSeconds(90));
    assertThat(RetryAfter.parse("Mon, 31 Dec 2029 00:00:00 GMT", NOW)).contains(Duration.ZERO);
  }

  @Test
  void nonsenseIsIgnored() {
    assertThat(RetryAfter.parse("soon", NOW)).isEqualTo(Optional.empty());
    assertThat(RetryAfter.parse("", NOW)).isEmpty();
    assertThat(RetryAfter.parse(null, NOW)).isEmpty();
    assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
  }
}
