package io.punctual.client;

import java.net.URI;
import java.util.Map;
import java.util.Objects;

/** Where the server POSTs the outcome of a job once it is final. */
public record Callback(URI url, Map<String, String> headers) {
  public Callback {
    Objects.requireNonNull(url, "url");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  public static Callback to(URI url) {
    return new Callback(url, Map.of());
  }
}
