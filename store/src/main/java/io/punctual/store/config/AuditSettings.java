package io.punctual.store.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import java.time.Duration;

/**
 * The audit log (the {@code audit} section of the configuration): how long entries are kept (the
 * reaper drops whole days past it) and how the API writes them (a bounded buffer drained by one
 * background writer). Mutable Jackson bean; every field has a default that works.
 */
public class AuditSettings implements ValidatedSettings {
  /**
   * Entries are kept this long, in whole UTC days: the reaper drops a day once all of it is older.
   */
  @JsonProperty public Duration retention = Duration.ofDays(90);

  /**
   * Most entries waiting in an API process for the writer. An entry that finds it full is left out
   * and counted (a request never waits for room; one {@code dropped} entry records how many once
   * there is room again): this bounds the memory, and what a crash can lose.
   */
  @JsonProperty public int bufferSize = 10_000;

  /** How often the writer stores what the buffer holds (at most this much is lost to a crash). */
  @JsonProperty public Duration flushInterval = Duration.ofMillis(100);

  /** Most entries in one INSERT. */
  @JsonProperty public int maxBatch = 1_000;

  @Override
  public void validate(SettingsErrors errors) {
    errors.require(
        retention != null && retention.toDays() >= 1, "audit.retention must be at least 1 day");
    errors.require(bufferSize >= 1, "audit.bufferSize must be >= 1");
    errors.positive(flushInterval, "audit.flushInterval");
    errors.require(maxBatch >= 1, "audit.maxBatch must be >= 1");
  }
}
