package io.punctual.client;

import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * A job's {@code callback}: where the built-in {@code http} handler POSTs the job's payload, as
 * JSON, with these headers (plus {@code Punctual-Job-Id}, {@code Punctual-Attempt}, {@code
 * Idempotency-Key} and the Standard Webhooks {@code webhook-id}, {@code webhook-timestamp} and,
 * when the worker has signing secrets, {@code webhook-signature}), once per attempt. That request
 * is the job's work: a 2xx answer succeeds it, 429 and 5xx are retried, any other status fails it.
 * Jobs of other types carry the callback for their own handlers ({@code JobContext.callback()});
 * nothing is sent when a job ends. Header values are write-only: a callback read from the API has
 * each header's name with the value {@code "(hidden)"}.
 */
public record Callback(URI url, Map<String, String> headers) {
  public Callback {
    Objects.requireNonNull(url, "url");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  public static Callback to(URI url) {
    return new Callback(url, Map.of());
  }
}
