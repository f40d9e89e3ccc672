package io.punctual.api.stats;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.store.stats.StatsHistogram;
import io.punctual.store.stats.StatsReader;
import io.punctual.store.stats.StatsReader.GroupBy;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /api/v1/stats} and {@code /api/v1/stats/series}: attempts by outcome, success rate and
 * duration and start-lag percentiles from the per-minute rollup the reaper keeps ({@link
 * io.punctual.store.stats.StatsRollup}), so they cost the same at 10 million jobs as at ten.
 */
@Path("/api/v1/stats")
@Produces(MediaType.APPLICATION_JSON)
public final class StatsResource {
  /** The longest range of {@code /stats}. */
  static final Duration MAX_RANGE = Duration.ofDays(31);

  /** The longest range of {@code /stats/series} (one point a minute). */
  static final Duration MAX_SERIES_RANGE = Duration.ofDays(7);

  /** The range when {@code from} is not given: the last day (series: the last hour). */
  static final Duration DEFAULT_RANGE = Duration.ofDays(1);

  static final Duration DEFAULT_SERIES_RANGE = Duration.ofHours(1);

  private final StatsReader reader;
  private final Clock clock;

  public StatsResource(StatsReader reader, Clock clock) {
    this.reader = reader;
    this.clock = clock;
  }

  /** Two percentiles of a histogram, in milliseconds (null when it holds nothing). */
  public record Percentiles(Long p50, Long p95) {
    static Percentiles of(StatsHistogram h) {
      return new Percentiles(h.percentile(0.50), h.percentile(0.95));
    }
  }

  /** One group of {@code /stats}. */
  public record Group(
      String key,
      Map<String, Long> counts,
      Double successRate,
      Percentiles durationMs,
      Percentiles startLagMs) {}

  /** The body of {@code /stats}. */
  public record Stats(String from, String to, String groupBy, List<Group> groups) {}

  /** The body of {@code /stats/series}. */
  public record Series(String from, String to, List<Point> points) {}

  /** One minute of the series. */
  public record Point(String minute, long started, long succeeded, long failed) {}

  @GET
  @Timed
  @Requires(Permission.READ)
  public Stats stats(
      @Context ContainerRequestContext request,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("groupBy") String groupBy) {
    RequestContext context = RequestContext.of(request);
    GroupBy by = groupBy(groupBy);
    Instant[] range = range(from, to, DEFAULT_RANGE, MAX_RANGE);
    List<String> namespaces =
        by == GroupBy.NAMESPACE ? keyNamespaces(context.principal()) : List.of(context.namespace());
    List<Group> groups =
        reader.groups(namespaces, range[0], range[1], by).stream()
            .map(
                g ->
                    new Group(
                        g.key(),
                        g.counts(),
                        g.successRate(),
                        Percentiles.of(g.duration()),
                        Percentiles.of(g.startLag())))
            .toList();
    return new Stats(
        range[0].toString(), range[1].toString(), by.name().toLowerCase(Locale.ROOT), groups);
  }

  @GET
  @Path("series")
  @Timed
  @Requires(Permission.READ)
  public Series series(
      @Context ContainerRequestContext request,
      @QueryParam("from") String from,
      @QueryParam("to") String to) {
    String namespace = RequestContext.of(request).namespace();
    Instant[] range = range(from, to, DEFAULT_SERIES_RANGE, MAX_SERIES_RANGE);
    return new Series(
        range[0].toString(),
        range[1].toString(),
        reader.series(namespace, range[0], range[1]).stream()
            .map(p -> new Point(p.minute().toString(), p.started(), p.succeeded(), p.failed()))
            .toList());
  }

  /** The key's namespaces; null for a key of every namespace. */
  private static List<String> keyNamespaces(Principal principal) {
    return principal.namespaces().contains(Principal.ALL_NAMESPACES)
        ? null
        : principal.namespaces();
  }

  private static GroupBy groupBy(String value) {
    if (value == null || value.isBlank()) {
      return GroupBy.TYPE;
    }
    try {
      return GroupBy.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Problems.badParameter("groupBy", "must be one of type, namespace, hour");
    }
  }

  /** [from, to) on whole minutes: to defaults to now, from to {@code to - dflt}. */
  private Instant[] range(String from, String to, Duration dflt, Duration max) {
    Instant toTime = QueryParams.time("to", to);
    Instant fromTime = QueryParams.time("from", from);
    if (toTime == null) {
      toTime = clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
    }
    if (fromTime == null) {
      fromTime = toTime.minus(dflt);
    }
    if (!fromTime.isBefore(toTime)) {
      throw Problems.badParameter("from", "must be before to");
    }
    if (Duration.between(fromTime, toTime).compareTo(max) > 0) {
      // Names what the caller gave: "to" when both are given, else "from" (to defaulted to now).
      String field = to == null || to.isBlank() ? "from" : "to";
      throw Problems.badParameter(
          field, "from and to must be at most " + max.toDays() + " days apart");
    }
    return new Instant[] {fromTime, toTime};
  }
}
