package io.punctual.api.jobs;

import io.punctual.api.config.ApiSettings;
import io.punctual.api.problem.Problems;
import io.punctual.common.job.JobId;
import io.punctual.common.job.JobState;
import io.punctual.common.request.Fields;
import io.punctual.common.store.JobQueries.JobQuery;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/** Turns the query parameters of {@code GET /jobs} into a {@link JobQuery}, or a 400 problem. */
public final class ListParams {
  private ListParams() {}

  static JobQuery parse(
      String namespace,
      ApiSettings settings,
      String status,
      String type,
      String tag,
      String from,
      String to,
      String limit,
      String cursor) {
    Instant fromTime = time("from", from);
    Instant toTime = time("to", to);
    if (fromTime != null && toTime != null && !fromTime.isBefore(toTime)) {
      throw Problems.badParameter("from", "must be before to");
    }
    return new JobQuery(
        namespace,
        status(status),
        blankToNull(type),
        blankToNull(tag),
        fromTime,
        toTime,
        cursor(cursor),
        limit(limit, settings));
  }

  private static JobState status(String value) {
    if (isBlank(value)) {
      return null;
    }
    try {
      return JobState.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Problems.badParameter(
          "status",
          "must be one of "
              + java.util.Arrays.stream(JobState.values())
                  .map(Enum::name)
                  .collect(java.util.stream.Collectors.joining(", ")));
    }
  }

  private static Instant time(String name, String value) {
    if (isBlank(value)) {
      return null;
    }
    Instant instant = Fields.parseInstant(value.trim());
    if (instant == null) {
      throw Problems.badParameter(
          name, "must be an ISO-8601 date-time with offset such as 2030-01-01T09:00:00Z");
    }
    // as every time field: jobs are stored between these, and the SQL's ranges are built from it
    if (instant.isBefore(Instant.EPOCH) || instant.isAfter(Fields.LATEST)) {
      throw Problems.badParameter(name, "must be between 1970 and " + Fields.LATEST);
    }
    return instant;
  }

  /** The {@code limit} query parameter: the default when absent, else 1 to the configured max. */
  public static int limit(String value, ApiSettings settings) {
    if (isBlank(value)) {
      return settings.defaultListLimit;
    }
    try {
      int limit = Integer.parseInt(value.trim());
      if (limit >= 1 && limit <= settings.maxListLimit) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw Problems.badParameter(
        "limit", "must be an integer between 1 and " + settings.maxListLimit);
  }

  private static UUID cursor(String value) {
    if (isBlank(value)) {
      return null;
    }
    return JobId.parse(value.trim())
        .orElseThrow(() -> Problems.badParameter("cursor", "is not a cursor this API returned"));
  }

  private static String blankToNull(String value) {
    return isBlank(value) ? null : value;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
