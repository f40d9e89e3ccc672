package io.punctual.api.limits;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.store.limit.Limit;
import java.time.Instant;

/** A limit as the API shows it (the body of a PUT, plus its name, namespace and times). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LimitRepresentation(
    String name,
    String namespace,
    String type,
    String key,
    Integer concurrency,
    Rate rate,
    boolean slowKeyOnRetryAfter,
    boolean declared,
    Instant createdAt,
    Instant updatedAt) {
  /** A rate as the API shows it; {@code period} an ISO-8601 duration. */
  public record Rate(int limit, String period, int burst) {}

  static LimitRepresentation of(Limit l) {
    return new LimitRepresentation(
        l.name(),
        l.namespace(),
        l.type(),
        l.key(),
        l.concurrency(),
        l.rate() == null
            ? null
            : new Rate(l.rate().limit(), l.rate().period().toString(), l.rate().burst()),
        l.slowKeyOnRetryAfter(),
        l.declared(),
        l.createdAt(),
        l.updatedAt());
  }
}
