package io.punctual.common.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.model.Backoff;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void aVirtualThreadWritesWithTheBuffersAnEarlierOneGaveBack() throws Exception {
    JsonFactory factory = Json.configure(new ObjectMapper()).getFactory();

    BufferRecycler first = inNewVirtualThread(factory);
    BufferRecycler second = inNewVirtualThread(factory);

    // Jackson's default pool keeps buffers per thread: each new virtual thread got new ones.
    assertThat(second).isSameAs(first);
  }

  @Test
  void theSharedMapperWritesAndReadsAsBeforeFromManyVirtualThreads() throws Exception {
    Callable<JsonNode> roundTrip =
        () -> {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          Json.mapper().writeValue(out, Map.of("type", "noop", "n", 1));
          return Json.readTree(out.toString(StandardCharsets.UTF_8));
        };
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<JsonNode>> results = threads.invokeAll(Collections.nCopies(200, roundTrip));
      for (Future<JsonNode> r : results) {
        assertThat(r.get().path("type").asText()).isEqualTo("noop");
        assertThat(r.get().path("n").asInt()).isEqualTo(1);
      }
    }
  }

  @Test
  void anEmptyObjectIsReadAsItsOwnNewObjectEachTime() {
    JsonNode first = Json.readTree("{}");
    JsonNode second = Json.readTree("{}");

    assertThat(first).isEqualTo(new ObjectMapper().createObjectNode()).isNotSameAs(second);
    ((com.fasterxml.jackson.databind.node.ObjectNode) first).put("changed", true);
    assertThat(second.isEmpty()).isTrue();
    assertThat(Json.readTree(null)).isNull();
    assertThat(Json.readTree(" {} ")).isEqualTo(second);
  }

  /** The recycler a parser would get on a fresh virtual thread, given back when done. */
  private static BufferRecycler inNewVirtualThread(JsonFactory factory) throws Exception {
    AtomicReference<BufferRecycler> got = new AtomicReference<>();
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  BufferRecycler r = factory._getBufferRecycler();
                  got.set(r);
                  r.releaseToPool();
                });
    t.join();
    return got.get();
  }

  @Test
  void aBackoffRoundTripsThroughTheApiJsonShape() {
    Backoff b =
        Json.read(
            "{\"strategy\":\"exponential\",\"initialDelay\":\"PT1S\",\"factor\":2.0,"
                + "\"maxDelay\":\"PT1H\",\"jitter\":0.2}",
            Backoff.class);
    assertThat(b).isEqualTo(Backoff.DEFAULT);
    assertThat(Json.read(Json.write(b), Backoff.class)).isEqualTo(b);
    assertThat(Json.write(new Backoff.Fixed(Duration.ofSeconds(30))))
        .isEqualTo("{\"strategy\":\"fixed\",\"delay\":\"PT30S\"}");
  }
}
