package io.punctual.api.hostile;

import io.punctual.api.hostile.Probe.Expect;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Requests that would make the API do much more work than a refusal costs, each with the one status
 * it must get: a gzip bomb (15.5 KB inflating to 16 MB) without a valid key is a 401 before any of
 * it is inflated, and with one a 413 once past {@code api.maxRequestBytes}; a payload search
 * without the payload index and without a short range is refused naming the range and the payload
 * (400 for {@code GET /jobs}, 422 for a bulk action's filter).
 */
final class CostProbes {
  private CostProbes() {}

  /** 16 MB of white space, gzip: 15.5 KB. */
  static final byte[] BOMB = bomb(16 * 1024 * 1024);

  static List<Probe> all(String key) {
    Route submit = route("POST /api/v1/jobs");
    Route batch = route("POST /api/v1/jobs/batch");
    Route list = route("GET /api/v1/jobs");
    Route bulk = route("POST /api/v1/jobs/bulk");
    List<Probe> out = new ArrayList<>();
    for (Route route : List.of(submit, batch)) {
      String path = route.template();
      out.add(bomb("gzip-bomb-no-key " + path, route, path, null, 401));
      out.add(bomb("gzip-bomb-unknown-key " + path, route, path, "pct_" + "Z".repeat(43), 401));
      out.add(bombWith("gzip-bomb-basic-auth " + path, route, path, 401, "Basic YTpi"));
      out.add(bomb("gzip-bomb-keyed " + path, route, path, key, 413));
    }

    String payload = enc("{\"a\":1}");
    String[][] ranges = { // label, from, to (null: not given)
      {"no-range", null, null},
      {"from-only", "2030-01-01T00:00:00Z", null},
      {"to-only", null, "2030-01-01T00:00:00Z"},
      {"two-days", "2030-01-01T00:00:00Z", "2030-01-03T00:00:00Z"},
      {"a-day-and-a-millisecond", "2030-01-01T00:00:00Z", "2030-01-02T00:00:00.001Z"},
    };
    for (String[] range : ranges) {
      String query = "";
      String filter = "{\"payload\":{\"a\":1}";
      if (range[1] != null) {
        query += "&from=" + range[1];
        filter += ",\"from\":\"" + range[1] + "\"";
      }
      if (range[2] != null) {
        query += "&to=" + range[2];
        filter += ",\"to\":\"" + range[2] + "\"";
      }
      filter += "}";
      out.add(
          new Probe(
              "COST payload-search " + range[0],
              list,
              new Request("GET", "/api/v1/jobs?payload=" + payload + query, key).bytes(),
              "payload",
              Expect.REFUSED,
              400));
      out.add(
          new Probe(
              "COST bulk-payload " + range[0],
              bulk,
              new Request("POST", "/api/v1/jobs/bulk", key)
                  .json("{\"action\":\"cancel\",\"filter\":" + filter + ",\"dryRun\":true}")
                  .bytes(),
              "filter.payload",
              Expect.REFUSED,
              422));
    }
    return out;
  }

  private static Probe bomb(String name, Route route, String path, String key, int status) {
    return bombWith(name, route, path, status, key == null ? null : "Bearer " + key);
  }

  private static Probe bombWith(
      String name, Route route, String path, int status, String authorization) {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
            + "Content-Encoding: gzip\r\nConnection: close\r\nContent-Length: "
            + BOMB.length
            + "\r\n\r\n";
    request.writeBytes(head.getBytes(StandardCharsets.UTF_8));
    request.writeBytes(BOMB);
    return new Probe("COST " + name, route, request.toByteArray(), null, Expect.REFUSED, status);
  }

  private static Route route(String name) {
    return Routes.ALL.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
  }

  private static String enc(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  private static byte[] bomb(int spaces) {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      byte[] block = new byte[1 << 20];
      Arrays.fill(block, (byte) ' ');
      for (int written = 0; written < spaces; written += block.length) {
        out.write(block);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return gz.toByteArray();
  }
}
