package io.punctual.api.jobs;

import io.punctual.api.config.ApiSettings;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.requests.FieldError;
import io.punctual.store.JobFilter;
import io.punctual.store.JobQueries.JobQuery;
import io.punctual.store.PayloadIndex;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * What a read of jobs by filter may ask ({@code GET /jobs}, a bulk action's {@code filter}): its
 * page size, and, while the optional payload index is off ({@link PayloadIndex}, {@code
 * reaper.payloadIndex}), a payload search only over a {@code from}/{@code to} range of at most
 * {@code api.payloadSearchMaxRange}: without the index such a search reads every job of the range,
 * and without a range every job the namespace ever had (about 3 s at 10 million jobs).
 *
 * <p>Whether the index exists is read from PostgreSQL (the catalog) by the first payload search
 * that gives no such range, and then at most once per {@link #INDEX_RECHECK} (10 s): other reads
 * never ask. An index built or dropped by the reaper applies here within that time (a search it
 * lets through meanwhile is still bounded by {@code api.statementTimeout}).
 */
public final class JobListing {
  /** How long what was read of the payload index is trusted. */
  static final Duration INDEX_RECHECK = Duration.ofSeconds(10);

  private final ApiSettings settings;
  private final PayloadIndex index;
  private final Clock clock;
  private volatile IndexState state;

  private record IndexState(boolean valid, Instant readAt) {}

  public JobListing(ApiSettings settings, PayloadIndex index, Clock clock) {
    this.settings = settings;
    this.index = index;
    this.clock = clock;
  }

  /** The settings it reads. */
  public ApiSettings settings() {
    return settings;
  }

  /**
   * The query of {@code GET /jobs}'s parameters.
   *
   * @throws io.punctual.api.problem.ProblemException 400 naming the parameter at fault
   */
  JobQuery query(String namespace, ListParams.FilterFields fields, String limit, String cursor) {
    JobQuery query = ListParams.parse(namespace, settings, fields, limit, cursor);
    requirePayloadRange(query.payload(), query.from(), query.to(), "", Problems::badParameters);
    return query;
  }

  /** A page size ({@code limit}) of a list of jobs; 400 when it is not one. */
  int pageSize(String limit) {
    return QueryParams.limit(limit, settings);
  }

  /**
   * Refuses a payload search of {@code filter} (a bulk action's) that the store could only serve by
   * reading too much, naming {@code prefix + "from"} (or {@code to}) and {@code prefix +
   * "payload"}.
   */
  public void requirePayloadRange(
      JobFilter filter, String prefix, Function<List<FieldError>, RuntimeException> refusal) {
    requirePayloadRange(filter.payload(), filter.from(), filter.to(), prefix, refusal);
  }

  private void requirePayloadRange(
      String payload,
      Instant from,
      Instant to,
      String prefix,
      Function<List<FieldError>, RuntimeException> refusal) {
    if (payload == null) {
      return;
    }
    Duration max = settings.payloadSearchMaxRange;
    if (from != null && to != null && Duration.between(from, to).compareTo(max) <= 0) {
      return;
    }
    if (indexed()) {
      return;
    }
    String why =
        "a payload search needs a from/to range of at most "
            + max
            + " (api.payloadSearchMaxRange) while the payload index is off (reaper.payloadIndex)";
    FieldError range =
        from == null
            ? new FieldError(prefix + "from", "is required: " + why)
            : to == null
                ? new FieldError(prefix + "to", "is required: " + why)
                : new FieldError(prefix + "to", "is too far after from: " + why);
    throw refusal.apply(
        List.of(range, new FieldError(prefix + "payload", "needs from and to: " + why)));
  }

  private boolean indexed() {
    Instant now = clock.instant();
    IndexState known = state;
    if (known == null || !now.isBefore(known.readAt().plus(INDEX_RECHECK))) {
      known = new IndexState(index.valid(), now);
      state = known;
    }
    return known.valid();
  }
}
