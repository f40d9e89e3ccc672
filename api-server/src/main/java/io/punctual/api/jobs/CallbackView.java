package io.punctual.api.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.requests.CallbackParser;
import java.util.Iterator;

/**
 * A {@code callback} as the API shows it, on every read of a job or a schedule: {@code
 * callback.headers} are write-only (they often hold credentials), so each header keeps its name and
 * shows {@link #HIDDEN} instead of its value. The stored callback is not changed: the worker still
 * sends the values given at submit.
 */
public final class CallbackView {
  /** What every header value reads as. */
  public static final String HIDDEN = CallbackParser.HIDDEN_VALUE;

  private CallbackView() {}

  /** {@code stored} with its header values hidden; {@code stored} itself when it has none. */
  public static JsonNode of(JsonNode stored) {
    if (!(stored instanceof ObjectNode callback)
        || !(callback.get("headers") instanceof ObjectNode headers)
        || headers.isEmpty()) {
      return stored;
    }
    ObjectNode shown = callback.deepCopy();
    ObjectNode names = shown.objectNode();
    for (Iterator<String> it = headers.fieldNames(); it.hasNext(); ) {
      names.put(it.next(), HIDDEN);
    }
    shown.set("headers", names);
    return shown;
  }
}
