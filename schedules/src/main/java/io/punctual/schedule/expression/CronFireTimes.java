package io.punctual.schedule.expression;

import io.punctual.schedule.expression.DstPolicy.Gap;
import io.punctual.schedule.expression.DstPolicy.Overlap;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * The instants at which a cron expression fires in a time zone, daylight-saving changes handled by
 * a {@link DstPolicy}.
 *
 * <p>cron-utils alone is not usable here: across a spring-forward change it silently drops a time
 * inside the gap (02:30 does not fire that day), and across a fall-back change it fires an hourly
 * or finer expression at both repeated times but a daily one only once. So the expression is asked
 * only for wall-clock times on a time line without DST ({@link CronExpression#nextLocal}), and this
 * class maps them to instants itself, one stretch of constant offset at a time:
 *
 * <ul>
 *   <li>between two transitions of the zone the offset is fixed, and a wall-clock time L of that
 *       stretch fires at L - offset;
 *   <li>after a fall-back transition the stretch starts with the repeated hour; with {@code first}
 *       those wall-clock times fired already in the stretch before, so they are left out;
 *   <li>after a spring-forward transition, with {@code shift}, the wall-clock times inside the gap
 *       fire at L - (offset before the change), which is L moved forward by the gap: 02:30 at
 *       03:30. When that coincides with a regular time (an hourly expression's 02:00 moved to
 *       03:00), it fires once. With {@code skip} they do not fire.
 * </ul>
 *
 * Immutable and thread-safe.
 */
public final class CronFireTimes implements FireTimes {
  /** Stretches examined for one answer before giving up (an expression matching nothing left). */
  private static final int MAX_STRETCHES = 1_000;

  private final CronExpression cron;
  private final ZoneId zone;
  private final ZoneRules rules;
  private final DstPolicy dst;

  public CronFireTimes(CronExpression cron, ZoneId zone, DstPolicy dst) {
    this.cron = Objects.requireNonNull(cron, "cron");
    this.zone = Objects.requireNonNull(zone, "zone");
    this.rules = zone.getRules();
    this.dst = Objects.requireNonNull(dst, "dst");
  }

  public ZoneId zone() {
    return zone;
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    if (rules.isFixedOffset()) {
      ZoneOffset offset = rules.getOffset(after);
      return cron.nextLocal(LocalDateTime.ofInstant(after, offset)).map(l -> l.toInstant(offset));
    }
    Instant cursor = after;
    ZoneOffsetTransition previous = rules.previousTransition(after.plusNanos(1));
    ZoneOffsetTransition next = rules.nextTransition(after);
    for (int i = 0; i < MAX_STRETCHES; i++) {
      Found found = searchStretch(cursor, previous, next);
      if (found.instant != null) {
        return Optional.of(found.instant);
      }
      if (found.exhausted || next == null) {
        return Optional.empty();
      }
      // The next stretch, searched from its first instant on (strictly after one before it).
      cursor = next.getInstant().minusNanos(1);
      previous = next;
      next = rules.nextTransition(next.getInstant());
    }
    return Optional.empty();
  }

  /** What one stretch holds: the first fire time after the cursor, or whether none can follow. */
  private record Found(Instant instant, boolean exhausted) {}

  /**
   * The first fire time strictly after {@code cursor} in the stretch between {@code previous} and
   * {@code next} (either may be null: no transition on that side).
   */
  private Found searchStretch(
      Instant cursor, ZoneOffsetTransition previous, ZoneOffsetTransition next) {
    ZoneOffset offset =
        previous != null
            ? previous.getOffsetAfter()
            : next != null ? next.getOffsetBefore() : rules.getOffset(cursor);
    Instant end = next == null ? null : next.getInstant();

    // Wall-clock times of this stretch.
    LocalDateTime from = LocalDateTime.ofInstant(cursor, offset);
    if (previous != null && previous.isOverlap() && dst.overlap() == Overlap.FIRST) {
      // The repeated hour [dateTimeAfter, dateTimeBefore) fired in the stretch before.
      LocalDateTime repeatedUntil = previous.getDateTimeBefore();
      if (from.isBefore(repeatedUntil)) {
        from = repeatedUntil.minusNanos(1);
      }
    }
    Optional<LocalDateTime> local = cron.nextLocal(from);
    Instant best = null;
    if (local.isPresent()) {
      Instant t = local.get().toInstant(offset);
      if (end == null || t.isBefore(end)) {
        best = t;
      }
    }

    // Wall-clock times of the gap this stretch starts with, moved forward by the gap.
    if (previous != null && previous.isGap() && dst.gap() == Gap.SHIFT) {
      ZoneOffset before = previous.getOffsetBefore();
      LocalDateTime gapStart = previous.getDateTimeBefore();
      LocalDateTime gapEnd = previous.getDateTimeAfter();
      LocalDateTime gapFrom = LocalDateTime.ofInstant(cursor, before);
      if (gapFrom.isBefore(gapStart)) {
        gapFrom = gapStart.minusNanos(1);
      }
      if (gapFrom.isBefore(gapEnd)) {
        Optional<LocalDateTime> moved = cron.nextLocal(gapFrom).filter(l -> l.isBefore(gapEnd));
        if (moved.isPresent()) {
          Instant t = moved.get().toInstant(before);
          if (best == null || t.isBefore(best)) {
            best = t;
          }
        }
      }
    }
    // No wall-clock time at all after `from`: later stretches (and their gaps) have none either.
    return new Found(best, best == null && local.isEmpty());
  }
}
