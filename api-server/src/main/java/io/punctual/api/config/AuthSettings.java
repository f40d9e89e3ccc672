package io.punctual.api.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.common.config.WeakSecrets;
import java.time.Duration;

/**
 * Who may call the API (the {@code auth} section of the configuration). Every request carries
 * {@code Authorization: Bearer <key>} unless {@link #enabled} is false.
 */
public final class AuthSettings implements ValidatedSettings {
  /** Shortest secret accepted as a bootstrap key. */
  public static final int MIN_BOOTSTRAP_KEY_LENGTH = 32;

  /** The bootstrap key's name in every error about it: the setting and its variable. */
  public static final String BOOTSTRAP_KEY_SETTING = "auth.bootstrapKey (PUNCTUAL_BOOTSTRAP_KEY)";

  /**
   * Whether requests must carry an API key. Off, every request acts as an admin of every namespace:
   * only for a private network (a WARN at every start says so).
   */
  @JsonProperty public boolean enabled = true;

  /**
   * A secret made an admin key at start, idempotently, for scripts and CI; at least 32 characters,
   * and not one that looks typed ({@link WeakSecrets}: an example word such as {@code change-me} or
   * a character repeated six times). Env: {@code PUNCTUAL_BOOTSTRAP_KEY}. Never logged or echoed.
   */
  @JsonProperty public String bootstrapKey;

  /**
   * How long an API server trusts a key it verified before reading it again. A key revoked through
   * another API server stops working here within this time (at once on the server that revoked it);
   * {@code lastUsedAt} is recorded at most once per period.
   */
  @JsonProperty public Duration cacheFor = Duration.ofSeconds(5);

  /**
   * How long an API server remembers a key it refused, and trusts the set of key prefixes it read,
   * before reading PostgreSQL again for an unknown key: so a flood of bad keys costs a read per
   * period, not per request. A key created through another API server may be refused here for up to
   * this long after its creation. Zero: every unknown key is looked up.
   */
  @JsonProperty public Duration unknownKeysFor = Duration.ofSeconds(2);

  /**
   * Refused authentications (401) answered a second to one source address, in bursts of twice that;
   * a refusal past it is held until its turn, at most 2 s, before it is answered, so a flood of bad
   * keys is answered at this rate instead of taking the API's CPU. Valid keys are never held. 0: no
   * pacing.
   */
  @JsonProperty public int refusalsPerSecondPerSource = 50;

  /** The bootstrap key, or null when none is set (an empty value counts as none). */
  public String bootstrapKeyOrNull() {
    return bootstrapKey == null || bootstrapKey.isBlank() ? null : bootstrapKey;
  }

  @Override
  public void validate(SettingsErrors errors) {
    String key = bootstrapKeyOrNull();
    WeakSecrets.check(key, BOOTSTRAP_KEY_SETTING, errors);
    errors.require(
        key == null || key.length() >= MIN_BOOTSTRAP_KEY_LENGTH,
        BOOTSTRAP_KEY_SETTING + " must be at least " + MIN_BOOTSTRAP_KEY_LENGTH + " characters");
    errors.require(
        key == null || key.chars().allMatch(c -> c > 0x20 && c < 0x7f),
        BOOTSTRAP_KEY_SETTING + " must be printable ASCII without spaces");
    errors.require(
        cacheFor != null
            && !cacheFor.isNegative()
            && cacheFor.compareTo(Duration.ofMinutes(5)) <= 0,
        "auth.cacheFor must be between PT0S and PT5M");
    errors.require(
        unknownKeysFor != null
            && !unknownKeysFor.isNegative()
            && unknownKeysFor.compareTo(Duration.ofMinutes(1)) <= 0,
        "auth.unknownKeysFor must be between PT0S and PT1M");
    errors.require(
        refusalsPerSecondPerSource >= 0 && refusalsPerSecondPerSource <= 100_000,
        "auth.refusalsPerSecondPerSource must be between 0 (no pacing) and 100000");
  }
}
