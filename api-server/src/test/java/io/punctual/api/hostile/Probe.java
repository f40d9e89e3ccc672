package io.punctual.api.hostile;

import java.nio.charset.StandardCharsets;

/**
 * One hostile request: the exact bytes sent, the route it aims at (null for raw-socket probes that
 * aim at the server itself), and what the answer must be.
 *
 * @param culprit the body field or parameter the refusal must name ({@code field} or an {@code
 *     errors[].field} equal to it or below it), or null when nothing is to be named
 * @param expect whether a 2xx is allowed
 * @param status the one status the answer must have, or 0 for any that {@code expect} allows
 */
record Probe(String name, Route route, byte[] bytes, String culprit, Expect expect, int status) {

  Probe(String name, Route route, byte[] bytes, String culprit, Expect expect) {
    this(name, route, bytes, culprit, expect, 0);
  }

  enum Expect {
    /** Must be refused with a 4xx. */
    REFUSED,
    /** May be accepted or refused (but never a 5xx, and a refusal is problem+json). */
    EITHER,
    /** As EITHER, and the server may also close the connection without answering. */
    EITHER_OR_SILENCE
  }

  @Override
  public String toString() {
    String text = new String(bytes, 0, Math.min(bytes.length, 300), StandardCharsets.ISO_8859_1);
    return name + " -> " + text.replace("\r", "\\r").replace("\n", "\\n");
  }
}
