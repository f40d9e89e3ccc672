package io.punctual.deploy.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.Authorizer;
import io.punctual.api.schedules.ScheduleRequestParser;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.planner.PlannerSettings;
import io.punctual.requests.FieldError;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.RequestRejectedException;
import io.punctual.schedule.DeclaredSchedule;
import io.punctual.schedule.ScheduleDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The schedules declared under {@code planner.schedules}: each a {@code POST /api/v1/schedules}
 * body with a required {@code initIdentifier} and an optional {@code namespace} (default {@code
 * api.defaultNamespace}), validated by the parser the API uses, so the rules and messages are the
 * same. Each planner registers them when it starts (an idempotent upsert by initIdentifier).
 */
public final class DeclaredSchedules {
  private DeclaredSchedules() {}

  /**
   * The declared schedules, or an {@link InvalidSettingsException} naming every bad field of every
   * schedule ({@code planner.schedules[1].cron: ...}).
   */
  public static List<DeclaredSchedule> parse(
      PlannerSettings planner, ApiSettings api, Instant now) {
    ScheduleRequestParser parser =
        new ScheduleRequestParser(api.jobFieldRules(), planner.minInterval);
    List<DeclaredSchedule> out = new ArrayList<>();
    SettingsErrors errors = new SettingsErrors();
    for (int i = 0; i < planner.schedules.size(); i++) {
      try {
        out.add(parseOne(parser, planner, api, i, now));
      } catch (InvalidSettingsException e) {
        errors.addAll(e.errors());
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    errors.throwIfAny();
    return out;
  }

  private static DeclaredSchedule parseOne(
      ScheduleRequestParser parser, PlannerSettings planner, ApiSettings api, int i, Instant now) {
    String path = "planner.schedules[" + i + "]";
    ObjectNode body = planner.schedules.get(i).deepCopy();
    String namespace = namespace(body.remove("namespace"), api, path);
    JsonNode key = body.get("initIdentifier");
    if (key == null || !key.isTextual() || key.textValue().isBlank()) {
      throw new IllegalArgumentException(
          path + ".initIdentifier is required (it keeps restarts from creating duplicates)");
    }
    ScheduleDefinition definition;
    try {
      definition = parser.parse(body, path + ".", now);
    } catch (RequestRejectedException e) {
      throw new InvalidSettingsException(describe(e, path));
    }
    return new DeclaredSchedule(namespace, definition);
  }

  private static String namespace(JsonNode value, ApiSettings api, String path) {
    if (value == null || value.isNull()) {
      return api.defaultNamespace;
    }
    if (!value.isTextual() || !Authorizer.isValidNamespace(value.textValue())) {
      throw new IllegalArgumentException(
          path + ".namespace must be 1 to 100 letters, digits, '.', '_', ':' or '-'");
    }
    return value.textValue();
  }

  /** Every bad field the parser named, as {@code planner.schedules[i].field: message} lines. */
  private static List<String> describe(RequestRejectedException rejected, String path) {
    return switch (rejected) {
      case InvalidFieldsException e -> {
        List<String> lines = new ArrayList<>();
        for (FieldError error : e.errors()) {
          lines.add((error.field() == null ? path : error.field()) + ": " + error.message());
        }
        yield lines.isEmpty() ? List.of(path + ": invalid") : lines;
      }
      case FieldTooLargeException e -> List.of(path + ": " + e.detail());
    };
  }
}
