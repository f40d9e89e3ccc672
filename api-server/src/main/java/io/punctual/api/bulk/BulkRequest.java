package io.punctual.api.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.jobs.ListParams;
import io.punctual.api.problem.Problems;
import io.punctual.common.json.Json;
import io.punctual.requests.StorableText;
import io.punctual.store.JobFilter;
import java.util.Iterator;
import java.util.Set;

/**
 * A validated {@code POST /api/v1/jobs/bulk} body: {@code {"action": "retry"|"cancel", "filter":
 * {the query parameters of GET /api/v1/jobs}, "dryRun": false}}; anything else is a 422 naming the
 * field. {@code filterJson}: the filter as given, for the record.
 */
public record BulkRequest(String action, JobFilter filter, String filterJson, boolean dryRun) {
  static final String RETRY = "retry";
  static final String CANCEL = "cancel";

  private static final Set<String> FIELDS = Set.of("action", "filter", "dryRun");
  private static final Set<String> FILTER_FIELDS =
      Set.of("status", "type", "tag", "from", "to", "idempotencyKey", "payload");

  static BulkRequest parse(String namespace, JsonNode body) {
    if (body == null || !body.isObject()) {
      throw Problems.invalid("", "must be a JSON object with action and filter");
    }
    // the filter's text goes to PostgreSQL as query parameters: a NUL or a lone surrogate there
    // is a 422 naming its field (filter.type), not a failed statement
    StorableText.require(body, "");
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw Problems.invalid(name, "is not a field of a bulk action");
      }
    }
    JsonNode action = body.get("action");
    if (action == null
        || !action.isTextual()
        || !(action.asText().equals(RETRY) || action.asText().equals(CANCEL))) {
      throw Problems.invalid("action", "must be \"retry\" or \"cancel\"");
    }
    JsonNode dryRun = body.get("dryRun");
    if (dryRun != null && !dryRun.isNull() && !dryRun.isBoolean()) {
      throw Problems.invalid("dryRun", "must be true or false");
    }
    JsonNode filter = body.get("filter");
    if (filter == null || !filter.isObject()) {
      throw Problems.invalid(
          "filter", "must be an object of the filters of GET /api/v1/jobs ({} for every job)");
    }
    for (Iterator<String> names = filter.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FILTER_FIELDS.contains(name)) {
        throw Problems.invalid("filter." + name, "is not a filter of GET /api/v1/jobs");
      }
      JsonNode value = filter.get(name);
      if (!value.isNull() && !value.isTextual() && !(name.equals("payload") && value.isObject())) {
        throw Problems.invalid("filter." + name, "must be a string");
      }
    }
    JsonNode payload = filter.get("payload");
    ListParams.FilterFields fields =
        new ListParams.FilterFields(
            text(filter, "status"),
            text(filter, "type"),
            text(filter, "tag"),
            text(filter, "from"),
            text(filter, "to"),
            text(filter, "idempotencyKey"),
            payload != null && payload.isObject() ? Json.write(payload) : text(filter, "payload"));
    JobFilter parsed = ListParams.filter(namespace, fields, "filter.", Problems::invalid);
    return new BulkRequest(
        action.asText(), parsed, Json.write(filter), dryRun != null && dryRun.asBoolean());
  }

  private static String text(JsonNode filter, String name) {
    JsonNode value = filter.get(name);
    return value == null || value.isNull() ? null : value.asText();
  }
}
