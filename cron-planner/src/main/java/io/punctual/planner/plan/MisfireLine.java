package io.punctual.planner.plan;

import io.punctual.planner.plan.PlannerLiveness.Beat;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one planner draws the line between missed and late fire times. A fire time not planned yet
 * that came more than {@code planner.misfireThreshold} before the planners came back from their
 * latest outage (every planner silent for longer than the threshold, see {@link PlannerLiveness})
 * was missed, and the schedule's misfire policy applies. Any later fire time is only late, however
 * long a working planner takes to reach it: a pass over 100,000 schedules that takes 20 s, or a
 * planner that falls behind, never turns regular fire times into misfires.
 *
 * <p>It beats before a batch when its last beat is {@code threshold / 4} old or more, and answers
 * from that beat in between (no other planner can find an outage while this one beats that often).
 * One per planner.
 */
final class MisfireLine {
  private static final Logger log = LoggerFactory.getLogger(MisfireLine.class);

  private final PlannerLiveness liveness;
  private final Duration threshold;
  private final Duration beatEvery;
  private final String holder;
  private Instant lastBeat;
  private Instant resumedAt;

  MisfireLine(PlannerLiveness liveness, Duration threshold, String holder) {
    this.liveness = liveness;
    this.threshold = threshold;
    this.beatEvery = threshold.dividedBy(4);
    this.holder = holder;
  }

  /** Fire times before the returned instant and not planned yet were missed. Beats when due. */
  synchronized Instant missedBefore(Instant now) {
    if (lastBeat == null || now.isBefore(lastBeat) || !now.isBefore(lastBeat.plus(beatEvery))) {
      Beat beat = liveness.beat(now);
      lastBeat = now;
      resumedAt = beat.resumedAt();
      if (resumedAt.equals(now)) {
        logResumed(beat, now);
      }
    }
    // Another planner's clock may be a little ahead: never draw the line after now - threshold.
    Instant resumed = resumedAt.isAfter(now) ? now : resumedAt;
    return resumed.minus(threshold);
  }

  private void logResumed(Beat beat, Instant now) {
    if (beat.downSince() == null) {
      log.info(
          "first planner beat holder={} missedBefore={}: unplanned fire times before it count as"
              + " missed",
          holder,
          now.minus(threshold));
    } else {
      log.warn(
          "planner outage found holder={} downSince={} resumedAt={} silence={} missedBefore={}:"
              + " no planner was alive meanwhile; unplanned fire times before missedBefore count"
              + " as missed",
          holder,
          beat.downSince(),
          now,
          Duration.between(beat.downSince(), now),
          now.minus(threshold));
    }
  }
}
