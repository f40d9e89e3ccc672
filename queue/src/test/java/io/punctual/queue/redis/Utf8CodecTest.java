package io.punctual.queue.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Utf8CodecTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "punctual:lease:0196f3c2-7a10-7000-8000-000000000001",
        "tenant-ü:q:hoch",
        "日本語のジョブ",
        "emoji 🎉 in a key",
        "\uD800 an unpaired surrogate"
      })
  void theSizeItTellsIsTheSizeItWrites(String value) {
    ByteBuf out = Unpooled.buffer();

    Utf8Codec.INSTANCE.encodeValue(value, out);

    assertThat(Utf8Codec.INSTANCE.isEstimateExact()).isTrue();
    assertThat(Utf8Codec.INSTANCE.estimateSize(value)).isEqualTo(out.readableBytes());
    if (!value.startsWith("\uD800")) { // an unpaired surrogate is written as '?'
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(value);
    }
  }

  @Test
  void nothingIsEncodedAsNothing() {
    assertThat(Utf8Codec.INSTANCE.estimateSize(null)).isZero();
  }
}
