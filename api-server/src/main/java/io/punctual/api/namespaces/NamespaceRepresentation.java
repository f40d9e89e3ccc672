package io.punctual.api.namespaces;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Quota;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A namespace on the wire. Every quota field is present, null meaning no limit; {@code weight} is
 * its share of the workers' free slots (1 to 1000); {@code usage} is present where it was cheap to
 * tell (one namespace read by name); {@code signingSecret}, its first signing secret, only in the
 * answer that created it.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record NamespaceRepresentation(
    String name,
    boolean active,
    Instant createdAt,
    Instant deactivatedAt,
    QuotaRepresentation quota,
    int weight,
    EgressRepresentation egress,
    @JsonInclude(JsonInclude.Include.NON_NULL) Usage usage,
    @JsonInclude(JsonInclude.Include.NON_NULL) CreatedSigningSecret signingSecret) {

  /** The limits; null is no limit. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record QuotaRepresentation(
      Integer submitsPerSecond,
      Integer burst,
      Long maxPending,
      Integer maxPayloadBytes,
      Integer maxRunning,
      Duration maxTimeout) {
    static QuotaRepresentation of(Quota q) {
      return new QuotaRepresentation(
          q.submitsPerSecond(),
          q.burst(),
          q.maxPending(),
          q.maxPayloadBytes(),
          q.maxRunning(),
          q.maxTimeout());
    }
  }

  /**
   * What the namespace's {@code http} callbacks may reach besides the public internet (granted
   * within the deployment's {@code worker.http.allow}), and whether their answers are kept.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record EgressRepresentation(List<String> allow, boolean keepResponse) {}

  /**
   * What the namespace uses now: its PENDING jobs, counted up to {@code pendingCountedUpTo} (a
   * count equal to that bound means at least that many).
   */
  public record Usage(long pending, long pendingCountedUpTo) {}

  static NamespaceRepresentation of(Namespace ns, Usage usage) {
    return new NamespaceRepresentation(
        ns.name(),
        ns.active(),
        ns.createdAt(),
        ns.deactivatedAt(),
        QuotaRepresentation.of(ns.quota()),
        ns.weight(),
        new EgressRepresentation(ns.egress().allow(), ns.egress().keepResponse()),
        usage,
        null);
  }

  /** The namespace just made, with its first signing secret's value (shown this once). */
  NamespaceRepresentation withSigningSecret(CreatedSigningSecret signingSecret) {
    return new NamespaceRepresentation(
        name, active, createdAt, deactivatedAt, quota, weight, egress, usage, signingSecret);
  }
}
