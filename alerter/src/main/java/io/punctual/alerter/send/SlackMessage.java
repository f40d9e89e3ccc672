package io.punctual.alerter.send;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;

/**
 * A notice as a Slack incoming webhook takes it: {@code {"text": ...}}. Slack reads angle brackets
 * in a message's text as markup (a link {@code <https://x|label>}, a mention {@code <!channel>} or
 * {@code <@U123>}) and an ampersand as the start of an entity, so every ampersand, less-than and
 * greater-than sign of the text is written as the entity Slack asks for (amp, lt, gt): a job type,
 * a rule name or a namespace then shows as it was typed, and pings or links no one.
 */
final class SlackMessage {
  private SlackMessage() {}

  /** The body of the notice whose summary is {@code summary}, its dedup key after it. */
  static String body(String summary, String dedupKey) {
    ObjectNode slack = JsonNodeFactory.instance.objectNode();
    slack.put("text", escape(summary + " (dedup key " + dedupKey + ")"));
    return Json.write(slack);
  }

  /** {@code text} with {@code &}, {@code <} and {@code >} escaped as Slack asks. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
