package io.punctual.queue.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.queue.testing.TestStack;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keys and values of every alphabet go to Redis and come back as they were sent. */
class Utf8CodecIT {
  private final TestStack stack = new TestStack();

  @AfterEach
  void close() {
    stack.deleteOwnRedisKeys();
    stack.close();
  }

  @Test
  void keysAndValuesOfEveryAlphabetComeBackUnchanged() {
    String key = stack.keys.prefix() + ":codec:ключ-🎉";
    List<String> members = List.of("ascii", "ünïcödé", "日本語", "emoji 🎉", "");

    stack.redis.sync().sadd(key, members.toArray(String[]::new));
    stack.redis.sync().set(key + ":v", "wert ✓ 値");

    assertThat(stack.redis.sync().smembers(key)).containsExactlyInAnyOrderElementsOf(members);
    assertThat(stack.redis.sync().get(key + ":v")).isEqualTo("wert ✓ 値");
    assertThat(stack.redis.sync().exists(key, key + ":v")).isEqualTo(2);
    assertThat(stack.redis.sync().strlen(key + ":v"))
        .isEqualTo("wert ✓ 値".getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }
}
