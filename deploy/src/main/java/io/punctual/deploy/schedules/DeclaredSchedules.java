package io.punctual.deploy.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.ApiSettings;
import io.punctual.api.context.Authorizer;
import io.punctual.api.problem.FieldError;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.schedules.ScheduleRequestParser;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Planner.Declared;
import io.punctual.planner.schedule.ScheduleDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The schedules declared under {@code planner.schedules}: each a {@code POST /api/v1/schedules}
 * body with a required {@code initIdentifier} and an optional {@code namespace} (default {@code
 * api.defaultNamespace}), validated by the API's own parser so the rules and messages are the same.
 * Each planner registers them when it starts (an idempotent upsert by initIdentifier).
 */
public final class DeclaredSchedules {
  private DeclaredSchedules() {}

  /**
   * The declared schedules, or an {@link InvalidSettingsException} naming every bad field of every
   * schedule ({@code planner.schedules[1].cron: ...}).
   */
  public static List<Declared> parse(PlannerSettings planner, ApiSettings api, Instant now) {
    ScheduleRequestParser parser = new ScheduleRequestParser(api, planner);
    List<Declared> out = new ArrayList<>();
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

  private static Declared parseOne(
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
    } catch (ProblemException e) {
      throw new InvalidSettingsException(describe(e, path));
    }
    return new Declared(namespace, definition);
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

  private static List<String> describe(ProblemException e, String path) {
    List<FieldError> errors = e.problem().errors();
    if (errors.isEmpty()) {
      return List.of(path + ": " + e.problem().detail());
    }
    return errors.stream()
        .map(error -> (error.field() == null ? path : error.field()) + ": " + error.message())
        .toList();
  }
}
