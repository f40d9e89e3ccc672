package io.punctual.schedule.expression;

import java.time.ZoneId;
import java.util.Optional;
import java.util.Set;

/** Time zones as schedules name them: IANA ids ({@code Europe/Paris}, {@code UTC}). */
public final class TimeZones {
  private static final Set<String> IDS = ZoneId.getAvailableZoneIds();

  private TimeZones() {}

  /**
   * The zone of an IANA id known to this JVM's time-zone database, spelled exactly; empty for
   * anything else, fixed offsets such as {@code +02:00} included (a zone follows its region's
   * daylight-saving rules, an offset does not).
   */
  public static Optional<ZoneId> parse(String id) {
    if (id == null || !IDS.contains(id.trim())) {
      return Optional.empty();
    }
    return Optional.of(ZoneId.of(id.trim()));
  }
}
