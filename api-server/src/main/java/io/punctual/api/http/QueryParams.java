package io.punctual.api.http;

import io.punctual.api.config.ApiSettings;
import io.punctual.api.problem.Problems;
import io.punctual.model.JobId;
import io.punctual.requests.Fields;
import java.time.Instant;
import java.util.UUID;

/** Query parameters every list of the API reads the same way; a bad one is a 400 naming it. */
public final class QueryParams {
  private QueryParams() {}

  /** The {@code limit} query parameter: the default when absent, else 1 to the configured max. */
  public static int limit(String value, ApiSettings settings) {
    return integer("limit", value, settings.defaultListLimit, 1, settings.maxListLimit);
  }

  /** A whole-number parameter: {@code dflt} when absent, else {@code min} to {@code max}. */
  public static int integer(String name, String value, int dflt, int min, int max) {
    if (isBlank(value)) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw Problems.badParameter(name, "must be an integer between " + min + " and " + max);
  }

  /**
   * A time parameter ({@code from}, {@code to}): null when absent, else an ISO-8601 instant between
   * 1970 and {@link Fields#LATEST}, as every time field (rows are stored between these, and the
   * SQL's ranges are built from them).
   */
  public static Instant time(String name, String value) {
    if (isBlank(value)) {
      return null;
    }
    Instant instant = Fields.parseInstant(value.trim());
    if (instant == null) {
      throw Problems.badParameter(
          name, "must be an ISO-8601 date-time with offset such as 2030-01-01T09:00:00Z");
    }
    if (instant.isBefore(Instant.EPOCH) || instant.isAfter(Fields.LATEST)) {
      throw Problems.badParameter(name, "must be between 1970 and " + Fields.LATEST);
    }
    return instant;
  }

  /**
   * The {@code cursor} of a list kept by id (the id of the previous page's last item): null when
   * absent, else an id this API gives out, or a 400 naming it.
   */
  public static UUID idCursor(String value) {
    if (isBlank(value)) {
      return null;
    }
    return JobId.parse(value.trim())
        .orElseThrow(() -> Problems.badParameter("cursor", "is not a cursor this API returned"));
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
