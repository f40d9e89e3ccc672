package io.punctual.planner.plan;

import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Occurrence.Outcome;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.expression.FireTimes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides, for one schedule at one moment, which fire times to materialise now; no I/O, so every
 * rule here is tested with plain instants.
 *
 * <ol>
 *   <li>Fire times before {@code missedBefore} were missed: they came while every planner was down
 *       (see {@link MisfireLine}, which draws that line; a fire time that is merely late because
 *       the planners are busy is not missed). {@code fire_once} makes one catch-up job, due now,
 *       for the first of them; {@code fire_all} one for each, earliest first, at most {@code
 *       fireAllCap}, and records the first one beyond the cap as missed; {@code skip} records the
 *       first as missed. Planning then goes on from the first fire time that is not missed: those
 *       that have come already are late, and become jobs due at their fire time (so, now).
 *   <li>Overlap {@code allow}: every fire time up to {@code now + lookAhead} becomes a job due at
 *       its fire time. The schedule is looked at again when its next fire time is half a look-ahead
 *       away, so frequent schedules are planned many occurrences at a time.
 *   <li>Overlap {@code skip}: only fire times that have come are materialised, each skipped when
 *       the previous run is still going; the schedule is looked at again at its next fire time.
 * </ol>
 *
 * At most {@link #MAX_PER_STEP} fire times are decided in one step; a schedule with more due is
 * left due and finished in the next batch of the same pass.
 */
public final class OccurrencePlanner {
  /** Most fire times one schedule gets in one planning step (bounds a transaction). */
  public static final int MAX_PER_STEP = 1_000;

  private final Duration lookAhead;
  private final int fireAllCap;

  public OccurrencePlanner(PlannerSettings settings) {
    this.lookAhead = settings.lookAhead;
    this.fireAllCap = settings.fireAllCap;
  }

  /**
   * The occurrences one due schedule gets now.
   *
   * @param missedBefore fire times before this and not planned yet were missed (never after {@code
   *     now})
   * @param previousRunActive whether the schedule's latest job is not final yet (only read for
   *     overlap {@code skip})
   */
  public SchedulePlan plan(
      Schedule schedule, Instant now, Instant missedBefore, boolean previousRunActive) {
    FireTimes times = schedule.fireTimes();
    boolean skipOverlap = schedule.definition().overlap() == OverlapPolicy.SKIP;
    List<Occurrence> out = new ArrayList<>();
    boolean[] running = {skipOverlap && previousRunActive};
    Instant t = schedule.nextFireAt();
    boolean misfire = false;

    if (t != null && t.isBefore(missedBefore)) {
      misfire = true;
      switch (schedule.definition().misfire()) {
        case FIRE_ONCE -> out.add(run(t, now, skipOverlap, running));
        case FIRE_ALL -> {
          while (t != null && t.isBefore(missedBefore) && out.size() < fireAllCap) {
            out.add(run(t, now, skipOverlap, running));
            t = times.nextAfter(t).orElse(null);
          }
          if (t != null && t.isBefore(missedBefore)) {
            out.add(Occurrence.skipped(t, Outcome.MISSED));
          }
        }
        case SKIP -> out.add(Occurrence.skipped(t, Outcome.MISSED));
      }
      t = times.firstFrom(missedBefore).orElse(null);
    }

    Instant until = skipOverlap ? now : now.plus(lookAhead);
    while (t != null && !t.isAfter(until) && out.size() < MAX_PER_STEP) {
      out.add(run(t, t, skipOverlap, running));
      t = times.nextAfter(t).orElse(null);
    }
    return new SchedulePlan(schedule.id(), out, t, planAt(t, now, skipOverlap), misfire);
  }

  /** A job for {@code fireAt}, unless overlap {@code skip} and a run is still going. */
  private static Occurrence run(
      Instant fireAt, Instant runAt, boolean skipOverlap, boolean[] running) {
    if (running[0]) {
      return Occurrence.skipped(fireAt, Outcome.SKIPPED_OVERLAP);
    }
    running[0] = skipOverlap; // the job made now is the previous run of the next fire time
    return Occurrence.job(fireAt, runAt);
  }

  private Instant planAt(Instant next, Instant now, boolean skipOverlap) {
    if (next == null) {
      return null;
    }
    Instant at = skipOverlap ? next : next.minus(lookAhead.dividedBy(2));
    return at.isBefore(now) ? now : at;
  }
}
