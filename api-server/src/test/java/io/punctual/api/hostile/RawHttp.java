package io.punctual.api.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, so that a probe can send bytes no HTTP client would (a NUL in the
 * path, a folded header, two Content-Lengths). Every exchange is bounded by a read timeout and the
 * client half-closes after writing, so a request the server waits on (a body shorter than its
 * Content-Length) ends instead of hanging the test.
 */
final class RawHttp {
  static final int READ_TIMEOUT_MS = 5_000;

  private final URI base;

  RawHttp(URI base) {
    this.base = base;
  }

  /** One parsed response; {@code timedOut}: the server neither answered nor closed in time. */
  record Response(int status, Map<String, String> headers, byte[] body, boolean timedOut) {
    String header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** Sends {@code request} as is and parses every response the server wrote before closing. */
  List<Response> exchange(byte[] request) {
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(READ_TIMEOUT_MS);
      socket.getOutputStream().write(request);
      socket.getOutputStream().flush();
      socket.shutdownOutput();
      ByteArrayOutputStream in = new ByteArrayOutputStream();
      boolean timedOut = false;
      byte[] buffer = new byte[8192];
      try {
        for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
          in.write(buffer, 0, n);
        }
      } catch (SocketTimeoutException e) {
        timedOut = true;
      } catch (IOException e) {
        // a reset after the answer: keep what was read
      }
      List<Response> responses = parseAll(in.toByteArray());
      if (timedOut) {
        responses.add(new Response(0, Map.of(), new byte[0], true));
      }
      return responses;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<Response> parseAll(byte[] raw) {
    List<Response> out = new ArrayList<>();
    int at = 0;
    while (at < raw.length) {
      int end = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), at);
      if (end < 0) {
        throw new IllegalStateException(
            "not an HTTP response: "
                + new String(raw, at, raw.length - at, StandardCharsets.UTF_8));
      }
      String head = new String(raw, at, end - at, StandardCharsets.ISO_8859_1);
      String[] lines = head.split("\r\n");
      int status = Integer.parseInt(lines[0].substring(9, 12));
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
      at = end + 4;
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      if (headers.getOrDefault("transfer-encoding", "").contains("chunked")) {
        while (true) {
          int lineEnd = indexOf(raw, "\r\n".getBytes(StandardCharsets.ISO_8859_1), at);
          String sizeLine = new String(raw, at, lineEnd - at, StandardCharsets.ISO_8859_1);
          int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
          at = lineEnd + 2;
          if (size == 0) {
            int trailerEnd = indexOf(raw, "\r\n".getBytes(StandardCharsets.ISO_8859_1), at);
            at = trailerEnd + 2;
            break;
          }
          body.write(raw, at, size);
          at += size + 2;
        }
      } else if (headers.containsKey("content-length")) {
        int length = Integer.parseInt(headers.get("content-length"));
        body.write(raw, at, Math.min(length, raw.length - at));
        at += length;
      } else {
        body.write(raw, at, raw.length - at);
        at = raw.length;
      }
      out.add(new Response(status, headers, body.toByteArray(), false));
    }
    return out;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = from; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
