package io.punctual.common.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Kept for the ttl, loaded again after it; a failed load caches nothing; bounded. */
class ExpiringCacheTest {
  private final MovableClock clock = new MovableClock();
  private final AtomicInteger loads = new AtomicInteger();

  private String load(String key) {
    return key + "#" + loads.incrementAndGet();
  }

  @Test
  void aValueIsKeptForTheTtlAndLoadedAgainAfterIt() {
    ExpiringCache<String, String> cache = new ExpiringCache<>(clock, Duration.ofSeconds(5), 100);

    assertThat(cache.get("a", this::load)).isEqualTo("a#1");
    clock.now = clock.now.plusMillis(4_999);
    assertThat(cache.get("a", this::load)).isEqualTo("a#1");
    assertThat(cache.get("b", this::load)).isEqualTo("b#2");
    clock.now = clock.now.plusMillis(1);
    assertThat(cache.get("a", this::load)).isEqualTo("a#3");
  }

  @Test
  void aFailedLoadCachesNothing() {
    ExpiringCache<String, String> cache = new ExpiringCache<>(clock, Duration.ofSeconds(5), 100);

    assertThatThrownBy(
            () ->
                cache.get(
                    "a",
                    k -> {
                      throw new IllegalStateException("store down");
                    }))
        .hasMessage("store down");
    assertThat(cache.get("a", this::load)).isEqualTo("a#1");
  }

  @Test
  void pastItsBoundTheCacheStartsOver() {
    ExpiringCache<String, String> cache = new ExpiringCache<>(clock, Duration.ofSeconds(5), 2);
    cache.get("a", this::load);
    cache.get("b", this::load);

    cache.get("c", this::load); // the third key: the cache starts over with it

    assertThat(cache.get("c", this::load)).isEqualTo("c#3");
    assertThat(cache.get("a", this::load)).isEqualTo("a#4");
  }

  private static final class MovableClock extends Clock {
    Instant now = Instant.parse("2030-01-07T10:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
