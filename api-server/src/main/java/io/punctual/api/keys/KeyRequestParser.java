package io.punctual.api.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.auth.ApiKeys.NewKey;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Role;
import io.punctual.api.context.Authorizer;
import io.punctual.requests.Fields;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.StorableText;
import io.punctual.requests.Violations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Validates {@code POST /api/v1/keys}: {@code {"name", "role", "namespaces", "expiresAt"?}}, every
 * invalid field named in one 422.
 */
final class KeyRequestParser {
  static final int MAX_NAME_LENGTH = 200;
  static final int MAX_NAMESPACES = 100;
  private static final Set<String> FIELDS = Set.of("name", "role", "namespaces", "expiresAt");

  private KeyRequestParser() {}

  static NewKey parse(JsonNode body, Instant now) {
    if (!(body instanceof ObjectNode object)) {
      throw new InvalidFieldsException(null, "must be a JSON object describing a key");
    }
    StorableText.require(object, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(FIELDS);
    String name = f.string("name", true, MAX_NAME_LENGTH);
    if (name != null && name.isBlank()) {
      f.error("name", "must not be blank");
    }
    Role role = role(f);
    List<String> namespaces = namespaces(f);
    if (role == Role.ADMIN
        && namespaces != null
        && !namespaces.equals(List.of(Principal.ALL_NAMESPACES))) {
      f.error("namespaces", "an admin key acts in every namespace: give [\"*\"]");
    }
    Instant expiresAt = f.instant("expiresAt");
    if (expiresAt != null && !expiresAt.isAfter(now)) {
      f.error("expiresAt", "must be in the future");
    }
    violations.throwIfAny();
    return new NewKey(name, role, namespaces, expiresAt);
  }

  private static Role role(Fields f) {
    String text = f.string("role", true, 20);
    if (text == null) {
      return null;
    }
    return Role.parse(text)
        .orElseGet(
            () -> {
              f.error("role", "must be one of admin, operator, submitter, viewer, worker");
              return null;
            });
  }

  private static List<String> namespaces(Fields f) {
    JsonNode value = f.get("namespaces");
    if (value == null) {
      f.error("namespaces", "is required: a list of namespaces, or [\"*\"] for all");
      return null;
    }
    if (!(value instanceof ArrayNode array) || array.isEmpty() || array.size() > MAX_NAMESPACES) {
      f.error(
          "namespaces",
          "must be a list of 1 to " + MAX_NAMESPACES + " namespaces, or [\"*\"] for all");
      return null;
    }
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < array.size(); i++) {
      JsonNode item = array.get(i);
      String text = item.isTextual() ? item.textValue() : null;
      boolean valid =
          text != null
              && (text.equals(Principal.ALL_NAMESPACES) || Authorizer.isValidNamespace(text));
      if (!valid) {
        f.error(
            "namespaces[" + i + "]",
            "must be a namespace (letters, digits, '.', '_', ':' or '-') or \"*\"");
      } else {
        names.add(text);
      }
    }
    if (names.contains(Principal.ALL_NAMESPACES) && names.size() > 1) {
      f.error("namespaces", "\"*\" already means every namespace: give it alone");
    }
    return new ArrayList<>(names);
  }
}
