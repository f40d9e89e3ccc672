package io.punctual.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Queue;

/**
 * One kept-alive HTTP/1.1 connection that posts the same JSON body again and again, as a load
 * generator such as wrk does: the request's bytes are built once, each answer is read as far as
 * HTTP needs (status line, headers, a {@code Content-Length} or chunked body) and its body kept
 * only when the status is not the expected one.
 *
 * <p>Why not a general HTTP client: the benchmark runs on the two cores it measures, so what the
 * client costs is taken from the API. Measured here on single submits, the JDK's {@code
 * java.net.http.HttpClient} cost 110-160 µs of CPU per request, half of what the API itself spent,
 * and Jetty's more (it asks for gzip, so the API also compressed every answer). This costs a few
 * µs: two system calls and a header scan. It speaks only what it needs and fails loudly on anything
 * else.
 */
final class KeepAliveSender implements AutoCloseable {
  /** A status and, when it is not the expected one, the body. */
  record Answer(int status, String body) {}

  private final InetSocketAddress address;
  private final byte[] request;
  private final int expectedStatus;
  private final byte[] line = new byte[8192];
  private final byte[] skip = new byte[16384];
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  /** {@code apiKey}: sent as {@code Authorization: Bearer <key>}; null sends none. */
  KeepAliveSender(String url, String json, int expectedStatus, String apiKey) {
    URI uri = URI.create(url);
    this.address = new InetSocketAddress(uri.getHost(), uri.getPort());
    this.expectedStatus = expectedStatus;
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + uri.getHost()
            + ":"
            + uri.getPort()
            + (apiKey == null ? "" : "\r\nAuthorization: Bearer " + apiKey)
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
    this.request = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, request, 0, headBytes.length);
    System.arraycopy(body, 0, request, headBytes.length, body.length);
  }

  /**
   * Sends the request once; an answer with another status than the expected one (with its body) or
   * an I/O error is added to {@code failures}.
   */
  void sendNotingFailures(Queue<String> failures) {
    try {
      Answer r = send();
      if (r.status() != expectedStatus) {
        failures.add(r.status() + " " + r.body());
      }
    } catch (IOException e) {
      failures.add(e.toString());
    }
  }

  /** Sends the request once and reads its answer; a broken connection is opened again next time. */
  Answer send() throws IOException {
    if (socket == null) {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(address, 5_000);
      socket.setSoTimeout(30_000);
      in = new BufferedInputStream(socket.getInputStream(), 16384);
      out = socket.getOutputStream();
    }
    try {
      out.write(request);
      out.flush();
      return readAnswer();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private Answer readAnswer() throws IOException {
    String statusLine = readLine();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    boolean closes = false;
    for (String header = readLine(); !header.isEmpty(); header = readLine()) {
      int colon = header.indexOf(':');
      String name = header.substring(0, Math.max(colon, 0)).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.contains("chunked");
        case "connection" -> closes = value.contains("close");
        default -> {}
      }
    }
    ByteArrayOutputStream kept = status == expectedStatus ? null : new ByteArrayOutputStream();
    if (chunked) {
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        body(size, kept);
        readLine(); // the CRLF after the chunk
      }
      while (!readLine().isEmpty()) {
        // trailers, none expected
      }
    } else if (length > 0) {
      body(length, kept);
    }
    if (closes) {
      close();
    }
    return new Answer(status, kept == null ? null : kept.toString(StandardCharsets.UTF_8));
  }

  private long chunkSize() throws IOException {
    String size = readLine();
    int semicolon = size.indexOf(';');
    return Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
  }

  /** Reads {@code n} body bytes, keeping them in {@code kept} unless it is null. */
  private void body(long n, ByteArrayOutputStream kept) throws IOException {
    while (n > 0) {
      int read = in.read(skip, 0, (int) Math.min(skip.length, n));
      if (read < 0) {
        throw new EOFException("connection closed in the middle of a body");
      }
      if (kept != null) {
        kept.write(skip, 0, read);
      }
      n -= read;
    }
  }

  /** A line up to CRLF, without it (headers are ASCII). */
  private String readLine() throws IOException {
    int n = 0;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed in the middle of an answer");
      }
      if (b == '\n') {
        int end = n > 0 && line[n - 1] == '\r' ? n - 1 : n;
        return new String(line, 0, end, StandardCharsets.US_ASCII);
      }
      if (n == line.length) {
        throw new IOException("header line longer than " + line.length + " bytes");
      }
      line[n++] = (byte) b;
    }
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      socket = null;
    }
  }
}
