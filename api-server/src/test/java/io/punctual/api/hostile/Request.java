package io.punctual.api.hostile;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A well-formed HTTP/1.1 request that a probe then spoils in one place: headers are written in
 * order, a null value leaves a header out, and Content-Length follows the body unless set.
 */
final class Request {
  private final String method;
  private final String target;
  private final Map<String, String> headers = new LinkedHashMap<>();
  private byte[] body = new byte[0];

  Request(String method, String target, String key) {
    this.method = method;
    this.target = target;
    headers.put("Host", "localhost");
    headers.put("Authorization", "Bearer " + key);
    headers.put("Connection", "close");
  }

  Request header(String name, String value) {
    headers.put(name, value);
    return this;
  }

  Request json(String text) {
    return body("application/json", text.getBytes(StandardCharsets.UTF_8));
  }

  Request body(String contentType, byte[] bytes) {
    headers.put("Content-Type", contentType);
    this.body = bytes.clone();
    return this;
  }

  byte[] bytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringBuilder head =
        new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n");
    Map<String, String> all = new LinkedHashMap<>(headers);
    if (!all.containsKey("Content-Length") && (body.length > 0 || !method.equals("GET"))) {
      all.put("Content-Length", Integer.toString(body.length));
    }
    all.forEach(
        (name, value) -> {
          if (value != null) {
            head.append(name).append(": ").append(value).append("\r\n");
          }
        });
    head.append("\r\n");
    // header values may carry raw UTF-8 (a non-ASCII key): write them as UTF-8 bytes
    out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    out.writeBytes(body);
    return out.toByteArray();
  }
}
