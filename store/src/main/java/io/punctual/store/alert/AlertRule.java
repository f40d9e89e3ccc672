package io.punctual.store.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A stored alert rule: in which namespace, what it watches ({@link Draft#event()}, narrowed by a
 * job type or a schedule) and whom it tells.
 */
public record AlertRule(
    UUID id, String namespace, Draft draft, Instant createdAt, Instant updatedAt) {

  /** Where a rule's notices go: a signed webhook or a Slack incoming webhook. */
  public enum Channel {
    WEBHOOK,
    SLACK;

    public String wireName() {
      return this == WEBHOOK ? "webhook" : "slack";
    }
  }

  /**
   * What a request defines ({@code count}, {@code percent}, {@code window} and {@code threshold}
   * are null where the event does not take them; {@code jobType} and {@code scheduleId} are null
   * when not narrowed).
   */
  public record Draft(
      String name,
      AlertEvent event,
      String jobType,
      UUID scheduleId,
      Integer count,
      Integer percent,
      Duration window,
      Duration threshold,
      Channel channel,
      String url,
      Duration cooldown) {}

  public String name() {
    return draft.name();
  }

  public AlertEvent event() {
    return draft.event();
  }
}
