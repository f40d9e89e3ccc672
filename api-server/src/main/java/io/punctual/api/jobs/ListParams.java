package io.punctual.api.jobs;

import io.punctual.api.config.ApiSettings;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.common.job.JobId;
import io.punctual.common.job.JobState;
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
    Instant fromTime = QueryParams.time("from", from);
    Instant toTime = QueryParams.time("to", to);
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
        QueryParams.limit(limit, settings));
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
