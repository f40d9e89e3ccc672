package io.punctual.load;

import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;

/**
 * Where the simulations point and how hard they push, from system properties: {@code punctual.url}
 * (default {@code http://localhost:8080}, what {@code ./punctual dev} serves), {@code rate}
 * (requests per second at the top of the ramp), {@code seconds} (how long to hold it).
 */
final class Target {
  private Target() {}

  static HttpProtocolBuilder protocol() {
    return http.baseUrl(System.getProperty("punctual.url", "http://localhost:8080"))
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
