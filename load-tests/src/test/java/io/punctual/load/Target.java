package io.punctual.load;

import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the simulations point and how hard they push, from system properties: {@code punctual.url}
 * (default {@code http://localhost:8080}, what {@code ./punctual dev} serves), {@code rate}
 * (requests per second at the top of the ramp), {@code seconds} (how long to hold it), {@code
 * punctual.key} (the API key requests carry; default: the environment variable PUNCTUAL_API_KEY,
 * else the admin key {@code ./punctual dev} wrote to {@code .punctual-data/admin.key} of the
 * repository, found from the working directory up).
 */
final class Target {
  private Target() {}

  static HttpProtocolBuilder protocol() {
    String key =
        key(
            System.getProperty("punctual.key"),
            System.getenv("PUNCTUAL_API_KEY"),
            Path.of("").toAbsolutePath());
    HttpProtocolBuilder protocol =
        http.baseUrl(System.getProperty("punctual.url", "http://localhost:8080"));
    if (key != null && !key.isBlank()) {
      protocol = protocol.authorizationHeader("Bearer " + key.strip());
    }
    return protocol
        .contentTypeHeader("application/json")
        .acceptHeader("application/json")
        .shareConnections();
  }

  /**
   * The first of {@code property}, {@code environment} and the content of {@code
   * .punctual-data/admin.key} in {@code dir} or a directory above it that is set; null if none.
   */
  static String key(String property, String environment, Path dir) {
    for (String given : new String[] {property, environment}) {
      if (given != null && !given.isBlank()) {
        return given.strip();
      }
    }
    for (Path at = dir; at != null; at = at.getParent()) {
      Path file = at.resolve(".punctual-data").resolve("admin.key");
      if (Files.isRegularFile(file)) {
        try {
          return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return null;
  }

  static int rate(int fallback) {
    return Integer.getInteger("rate", fallback);
  }

  static Duration hold(int fallbackSeconds) {
    return Duration.ofSeconds(Integer.getInteger("seconds", fallbackSeconds));
  }

  static Duration ramp() {
    return Duration.ofSeconds(Integer.getInteger("rampSeconds", 20));
  }
}
