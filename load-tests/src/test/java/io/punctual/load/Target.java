package io.punctual.load;

import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;

/**
 * Where the simulations point and how hard they push, from system properties: {@code punctual.url}
 * (default {@code http://localhost:8080}, what {@code ./punctual dev} serves), {@code rate}
 * (requests per second at the top of the ramp), {@code seconds} (how long to hold it), {@code
 * punctual.key} (the API key requests carry; default: the environment variable PUNCTUAL_API_KEY,
 * for {@code ./punctual dev} the content of {@code .punctual-data/admin.key}).
 */
final class Target {
  private Target() {}

  static HttpProtocolBuilder protocol() {
    String key = System.getProperty("punctual.key", System.getenv("PUNCTUAL_API_KEY"));
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
