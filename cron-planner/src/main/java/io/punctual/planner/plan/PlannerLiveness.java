package io.punctual.planner.plan;

import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;

/**
 * When the planners were last alive, shared by all of them (the one row of {@code
 * planner_liveness}, see {@code V7__planner_liveness.sql}): each planner {@link #beat}s as it
 * works, and a beat after a silence longer than {@code planner.misfireThreshold} marks an outage.
 * One statement in its own transaction, never inside a planning transaction.
 */
public final class PlannerLiveness {
  private static final String BEAT = new SqlFiles(PlannerLiveness.class).get("beat");

  /**
   * The row after a beat.
   *
   * @param aliveAt the latest beat of any planner
   * @param resumedAt when planning resumed after the latest outage (or the first beat ever)
   * @param downSince when that outage began (null: no planner had beaten before it)
   */
  public record Beat(Instant aliveAt, Instant resumedAt, Instant downSince) {}

  private final Jdbi jdbi;
  private final Duration silence;

  /**
   * @param silence how long no planner may beat before it counts as an outage ({@code
   *     planner.misfireThreshold})
   */
  public PlannerLiveness(Jdbi jdbi, Duration silence) {
    this.jdbi = jdbi;
    this.silence = silence;
  }

  /** Records that a planner is alive at {@code now}; returns the row as this beat left it. */
  public Beat beat(Instant now) {
    return jdbi.withHandle(
        h ->
            h.createQuery(BEAT)
                .bind("now", now)
                .bind("silentBefore", now.minus(silence))
                .map(
                    (rs, ctx) ->
                        new Beat(
                            Columns.instant(rs, "alive_at"),
                            Columns.instant(rs, "resumed_at"),
                            Columns.instant(rs, "down_since")))
                .one());
  }
}
