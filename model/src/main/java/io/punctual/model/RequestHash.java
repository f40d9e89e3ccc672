package io.punctual.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 of a JSON value written canonically: object keys sorted at every depth, no whitespace.
 * Key order and formatting of the original body therefore do not matter. A job's {@code
 * requestHash} (what idempotency keys compare) is this over the request's canonical form, whether
 * it came over REST or from an app's own transaction.
 */
public final class RequestHash {
  private static final ObjectMapper WRITER = new ObjectMapper();

  private RequestHash() {}

  public static String sha256(JsonNode value) {
    try {
      byte[] bytes = WRITER.writeValueAsBytes(sorted(value));
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot hash request", e);
    }
  }

  private static JsonNode sorted(JsonNode value) {
    if (value == null) {
      return JsonNodeFactory.instance.nullNode();
    }
    if (value.isObject()) {
      List<String> names = new ArrayList<>();
      value.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        out.set(name, sorted(value.get(name)));
      }
      return out;
    }
    if (value.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      value.forEach(element -> out.add(sorted(element)));
      return out;
    }
    return value;
  }
}
