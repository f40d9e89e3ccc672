package io.punctual.app.outbox;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import java.time.Clock;
import java.util.function.ToLongFunction;

/**
 * A relay's meters in a Dropwizard registry: rows forwarded, tried again later and set aside (per
 * pass), and the outbox's backlog as last read ({@link OutboxRelay#backlog()}). Relays sharing a
 * registry share the meters; the backlog is the table's, whichever relay read it last.
 */
final class OutboxMeters {
  private static final String PREFIX = "punctual.outbox.";
  private static final String FORWARDED = PREFIX + "forwarded";
  private static final String RETRIED = PREFIX + "retried";
  private static final String DEAD = PREFIX + "dead";
  private static final String WAITING_ROWS = PREFIX + "rows.waiting";
  private static final String DEAD_ROWS = PREFIX + "rows.dead";
  private static final String OLDEST_SECONDS = PREFIX + "oldest.seconds";

  private final Meter forwarded;
  private final Meter retried;
  private final Meter dead;
  private final BacklogGauge waitingRows;
  private final BacklogGauge deadRows;
  private final BacklogGauge oldestSeconds;

  OutboxMeters(MetricRegistry registry, Clock clock) {
    forwarded = registry.meter(FORWARDED);
    retried = registry.meter(RETRIED);
    dead = registry.meter(DEAD);
    waitingRows = gauge(registry, WAITING_ROWS, OutboxBacklog::waiting);
    deadRows = gauge(registry, DEAD_ROWS, OutboxBacklog::dead);
    oldestSeconds = gauge(registry, OLDEST_SECONDS, b -> b.oldestAge(clock.instant()).toSeconds());
  }

  void passed(RelayPass pass) {
    forwarded.mark(pass.forwarded());
    retried.mark(pass.retried());
    dead.mark(pass.dead());
  }

  void read(OutboxBacklog backlog) {
    waitingRows.last = backlog;
    deadRows.last = backlog;
    oldestSeconds.last = backlog;
  }

  private static BacklogGauge gauge(
      MetricRegistry registry, String name, ToLongFunction<OutboxBacklog> value) {
    Gauge<?> g = registry.gauge(name, () -> new BacklogGauge(value));
    if (g instanceof BacklogGauge ours) {
      return ours;
    }
    throw new IllegalArgumentException(name + " is registered already, by something else");
  }

  /** A figure of the last backlog read, worked out when the registry is read. */
  private static final class BacklogGauge implements Gauge<Long> {
    private final ToLongFunction<OutboxBacklog> value;
    private volatile OutboxBacklog last = OutboxBacklog.EMPTY;

    BacklogGauge(ToLongFunction<OutboxBacklog> value) {
      this.value = value;
    }

    @Override
    public Long getValue() {
      return value.applyAsLong(last);
    }
  }
}
