package io.punctual.queue.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.model.Priority;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/** How jobs move from PostgreSQL into Redis and how workers share the priorities. */
public class QueueSettings implements ValidatedSettings {
  /** Jobs due within this window are enqueued in Redis at once; later ones by the promoter. */
  @JsonProperty public Duration horizon = Duration.ofMinutes(10);

  /** How often the promoter looks for jobs entering the horizon. */
  @JsonProperty public Duration promoterInterval = Duration.ofSeconds(1);

  /**
   * The promoter stays this far behind the horizon's edge so that a job committed late by a slow
   * transaction is still seen. Must be smaller than {@code horizon}.
   */
  @JsonProperty public Duration promoterSlack = Duration.ofSeconds(30);

  /**
   * Weighted fair claiming: out of every (sum of weights) jobs claimed while all priorities have
   * due work, each priority gets its weight. No priority starves.
   */
  @JsonProperty
  public Map<Priority, Integer> weights =
      new EnumMap<>(
          Map.of(Priority.CRITICAL, 8, Priority.HIGH, 4, Priority.NORMAL, 2, Priority.LOW, 1));

  /** Strict mode: always drain higher priorities first (lower ones may starve). */
  @JsonProperty public boolean strictPriority = false;

  /**
   * After Redis lost its data (a flush, a restart, a failover), jobs put back from PostgreSQL that
   * are already due wait this long before a worker may take them: a live worker may be running them
   * on a claim it has not written yet ({@code worker.claimWriteAfter}), and writes it within this
   * time. At least {@code 2 × worker.claimWriteAfter + 2 s}; zero when no worker defers its claims.
   */
  @JsonProperty public Duration recoveryHoldBack = Duration.ofSeconds(3);

  public int weightOf(Priority priority) {
    Integer w = weights.get(priority);
    return w == null ? 1 : Math.max(1, w);
  }

  /** Adds every setting that makes no sense to {@code errors}. */
  @Override
  public void validate(SettingsErrors errors) {
    errors.positive(horizon, "queue.horizon");
    errors.positive(promoterInterval, "queue.promoterInterval");
    errors.require(
        promoterSlack != null && !promoterSlack.isNegative(), "queue.promoterSlack must be >= 0");
    errors.require(
        recoveryHoldBack != null && !recoveryHoldBack.isNegative(),
        "queue.recoveryHoldBack must be >= 0");
    if (horizon != null && promoterSlack != null) {
      errors.require(
          horizon.compareTo(promoterSlack) > 0,
          "queue.horizon must be larger than queue.promoterSlack");
    }
  }
}
