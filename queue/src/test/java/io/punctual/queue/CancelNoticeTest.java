package io.punctual.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CancelNoticeTest {
  @Test
  void severalNoticesTravelInOneMessage() {
    List<CancelNotice> notices =
        List.of(
            new CancelNotice(UUID.randomUUID(), 3, Instant.ofEpochMilli(1_700_000_000_123L)),
            new CancelNotice(UUID.randomUUID(), 0, Instant.ofEpochMilli(1_700_000_000_456L)));
    assertThat(CancelNotice.decode(CancelNotice.encode(notices))).isEqualTo(notices);
  }

  @Test
  void linesThatAreNotOursAreSkipped() {
    UUID id = UUID.randomUUID();
    assertThat(CancelNotice.decode("hello\n" + id + ":x:1\n" + id + ":2:5\n::"))
        .containsExactly(new CancelNotice(id, 2, Instant.ofEpochMilli(5)));
  }

  @Test
  void attemptZeroCoversWhicheverAttemptRuns() {
    UUID id = UUID.randomUUID();
    assertThat(new CancelNotice(id, 0, Instant.EPOCH).covers(7)).isTrue();
    assertThat(new CancelNotice(id, 2, Instant.EPOCH).covers(2)).isTrue();
    assertThat(new CancelNotice(id, 2, Instant.EPOCH).covers(3))
        .as("a later attempt (retried after the cancel) is not the one cancelled")
        .isFalse();
  }
}
