package io.punctual.api.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import java.time.Duration;

/**
 * {@code api.remoteWorkers}: the worker protocol ({@code /api/v1/workers}), by which workers in
 * other languages run jobs through this API process.
 */
public final class RemoteWorkerSettings {
  /** The most remote workers registered with this API process at once. */
  @JsonProperty public int maxWorkers = 100;

  /**
   * A remote worker that sends nothing (claim, heartbeat, completion) for this long is taken for
   * dead: its running attempts are left to the death watch, which rescues them as lost.
   */
  @JsonProperty public Duration leaseTtl = Duration.ofSeconds(15);

  /** How often a remote worker is told to heartbeat (shorter than {@code leaseTtl}). */
  @JsonProperty public Duration heartbeatInterval = Duration.ofSeconds(5);

  /** The longest a claim may wait for jobs ({@code waitMs}). */
  @JsonProperty public Duration maxWait = Duration.ofSeconds(30);

  public void validate(SettingsErrors errors) {
    errors.require(
        maxWorkers >= 0 && maxWorkers <= 10_000, "api.remoteWorkers.maxWorkers must be 0 to 10000");
    errors.positive(leaseTtl, "api.remoteWorkers.leaseTtl");
    errors.positive(heartbeatInterval, "api.remoteWorkers.heartbeatInterval");
    errors.positive(maxWait, "api.remoteWorkers.maxWait");
    if (leaseTtl != null && heartbeatInterval != null) {
      errors.require(
          heartbeatInterval.multipliedBy(2).compareTo(leaseTtl) <= 0,
          "api.remoteWorkers.leaseTtl must be at least twice api.remoteWorkers.heartbeatInterval");
    }
  }
}
