package io.punctual.api.hostile;

import io.punctual.api.hostile.Probe.Expect;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Requests only a raw socket can send: HTTP framing the server must refuse (or read safely) before
 * any route runs. Each aims at {@code POST /api/v1/jobs} or {@code GET /api/v1/jobs}, so that one
 * the server wrongly accepted shows as a stored job the ledger did not expect.
 */
final class RawProbes {
  private RawProbes() {}

  private static final String JOB = "{\"type\":\"hostile-raw\"}";

  static List<Probe> all(String key) {
    Route submit = Routes.ALL.get(0);
    Route list = Routes.ALL.get(2);
    String auth = "Authorization: Bearer " + key + "\r\n";
    String post =
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\n"
            + auth
            + "Content-Type: application/json\r\nConnection: close\r\n";
    String get = "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\n" + auth;
    List<Probe> out = new ArrayList<>();
    Adder add = (name, route, text, expect) -> out.add(probe(name, route, text, expect));

    add.add("http/1.0", list, "GET /api/v1/jobs HTTP/1.0\r\n" + auth + "\r\n", Expect.EITHER);
    add.add(
        "http/1.0-post",
        submit,
        "POST /api/v1/jobs HTTP/1.0\r\n"
            + auth
            + "Content-Type: application/json\r\n"
            + "Content-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB,
        Expect.EITHER);
    add.add("http/0.9", list, "GET /api/v1/jobs\r\n\r\n", Expect.EITHER_OR_SILENCE);
    add.add(
        "http/2.0-text",
        list,
        get.replace("HTTP/1.1", "HTTP/2.0") + "\r\n",
        Expect.EITHER_OR_SILENCE);
    add.add(
        "http/9.9", list, get.replace("HTTP/1.1", "HTTP/9.9") + "\r\n", Expect.EITHER_OR_SILENCE);
    add.add(
        "http/1.1-lower",
        list,
        get.replace("HTTP/1.1", "http/1.1") + "\r\n",
        Expect.EITHER_OR_SILENCE);
    add.add(
        "absolute-form",
        list,
        get.replace("/api/v1/jobs", "http://localhost/api/v1/jobs") + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "absolute-form-other-host",
        list,
        get.replace("/api/v1/jobs", "http://evil.example/api/v1/jobs")
            + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "absolute-form-ftp",
        list,
        get.replace("/api/v1/jobs", "ftp://localhost/api/v1/jobs") + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "authority-form",
        list,
        "CONNECT localhost:80 HTTP/1.1\r\nHost: localhost\r\n" + auth + "\r\n",
        Expect.REFUSED);
    add.add(
        "asterisk-form",
        list,
        "OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "obs-fold", list, get + "X-Folded: a\r\n  b\r\nConnection: close\r\n\r\n", Expect.REFUSED);
    add.add(
        "obs-fold-authorization",
        list,
        "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer\r\n "
            + key
            + "\r\nConnection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "duplicate-content-length-same",
        submit,
        post
            + "Content-Length: "
            + JOB.length()
            + "\r\nContent-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB,
        Expect.EITHER);
    add.add(
        "duplicate-content-length-differs",
        submit,
        post + "Content-Length: " + JOB.length() + "\r\nContent-Length: 5\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "content-length-list",
        submit,
        post + "Content-Length: " + JOB.length() + ", " + JOB.length() + "\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "content-length-negative",
        submit,
        post + "Content-Length: -1\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "content-length-plus",
        submit,
        post + "Content-Length: +" + JOB.length() + "\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "content-length-huge",
        submit,
        post + "Content-Length: 99999999999999999999999\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "content-length-hex", submit, post + "Content-Length: 0x10\r\n\r\n" + JOB, Expect.REFUSED);
    String chunked = Integer.toHexString(JOB.length()) + "\r\n" + JOB + "\r\n0\r\n\r\n";
    add.add(
        "smuggling-cl-te",
        submit,
        post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
        Expect.REFUSED);
    add.add(
        "smuggling-te-cl",
        submit,
        post + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" + chunked,
        Expect.REFUSED);
    add.add(
        "smuggling-te-space-before-colon",
        submit,
        post
            + "Transfer-Encoding : chunked\r\nContent-Length: "
            + chunked.length()
            + "\r\n\r\n"
            + chunked,
        Expect.REFUSED);
    add.add(
        "smuggling-te-xchunked",
        submit,
        post + "Transfer-Encoding: xchunked\r\n\r\n" + chunked,
        Expect.REFUSED);
    add.add(
        "smuggling-te-chunked-identity",
        submit,
        post + "Transfer-Encoding: chunked, identity\r\n\r\n" + chunked,
        Expect.REFUSED);
    add.add(
        "smuggling-te-twice",
        submit,
        post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
        Expect.EITHER);
    add.add(
        "smuggling-te-tab",
        submit,
        post + "Transfer-Encoding:\tchunked\r\n\r\n" + chunked,
        Expect.EITHER);
    add.add(
        "chunk-size-overflow",
        submit,
        post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n" + JOB + "\r\n0\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "chunk-size-negative",
        submit,
        post + "Transfer-Encoding: chunked\r\n\r\n-5\r\n" + JOB + "\r\n0\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "chunk-missing-terminator",
        submit,
        post
            + "Transfer-Encoding: chunked\r\n\r\n"
            + Integer.toHexString(JOB.length())
            + "\r\n"
            + JOB
            + "\r\n",
        Expect.REFUSED);
    add.add(
        "smuggled-request-in-body",
        submit,
        post
            + "Content-Length: 0\r\n\r\n"
            + "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\n"
            + auth
            + "Content-Type: application/json\r\nContent-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB,
        Expect.REFUSED);
    add.add(
        "lowercase-method",
        list,
        get.replace("GET", "get") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "long-method",
        list,
        get.replace("GET", "G".repeat(10_000)) + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "method-with-nul",
        list,
        get.replace("GET", "GE\u0000T") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "header-without-colon",
        list,
        get + "NoColonHere\r\nConnection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "header-empty-name", list, get + ": value\r\nConnection: close\r\n\r\n", Expect.REFUSED);
    add.add(
        "header-space-in-name",
        list,
        get + "X Bad: value\r\nConnection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "lf-only", list, (get + "Connection: close\r\n\r\n").replace("\r\n", "\n"), Expect.EITHER);
    add.add(
        "cr-only",
        list,
        (get + "Connection: close\r\n\r\n").replace("\r\n", "\r"),
        Expect.EITHER_OR_SILENCE);
    add.add(
        "body-shorter-than-content-length",
        submit,
        post + "Content-Length: " + (JOB.length() + 50) + "\r\n\r\n" + JOB,
        Expect.EITHER_OR_SILENCE);
    add.add(
        "body-longer-than-content-length",
        submit,
        post + "Content-Length: 5\r\n\r\n" + JOB,
        Expect.REFUSED);
    add.add(
        "pipelined",
        submit,
        post.replace("Connection: close\r\n", "")
            + "Content-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB
            + post
            + "Content-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB,
        Expect.EITHER);
    add.add(
        "pipelined-second-broken",
        submit,
        post.replace("Connection: close\r\n", "")
            + "Content-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB
            + post
            + "Content-Length: 2\r\n\r\n{\"",
        Expect.EITHER);
    add.add(
        "space-in-path",
        list,
        get.replace("/api/v1/jobs", "/api/v1/ jobs") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "tab-in-path",
        list,
        get.replace("/api/v1/jobs", "/api/v1/\tjobs") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "fragment-in-path",
        list,
        get.replace("/api/v1/jobs", "/api/v1/jobs#frag") + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "backslash-path",
        list,
        get.replace("/api/v1/jobs", "/api\\v1\\jobs") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "double-slash-path",
        list,
        get.replace("/api/v1/jobs", "//api//v1//jobs") + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "encoded-slash-id",
        list,
        get.replace("/api/v1/jobs", "/api/v1/jobs/a%2Fb") + "Connection: close\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "duplicate-host",
        list,
        get + "Host: evil.example\r\nConnection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "host-with-nul-escape",
        list,
        "GET /api/v1/jobs HTTP/1.1\r\nHost: local%00host\r\n" + auth + "Connection: close\r\n\r\n",
        Expect.EITHER);
    add.add("empty-request", list, "\r\n\r\n", Expect.EITHER_OR_SILENCE);
    add.add(
        "expect-continue-no-body",
        submit,
        post + "Expect: 100-continue\r\nContent-Length: 0\r\n\r\n",
        Expect.REFUSED);
    add.add(
        "upgrade-h2c",
        list,
        get
            + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nConnection: Upgrade, HTTP2-Settings, close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "upgrade-websocket",
        list,
        get
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        Expect.EITHER);
    add.add(
        "range-header",
        list,
        get + "Range: bytes=0-1,1-2,2-3,3-4\r\nConnection: close\r\n\r\n",
        Expect.EITHER);
    add.add(
        "content-encoding-unknown",
        submit,
        post + "Content-Encoding: br-bogus\r\nContent-Length: " + JOB.length() + "\r\n\r\n" + JOB,
        Expect.REFUSED);
    for (String coding : new String[] {"deflate", "br", "gzip, br", "compress"}) {
      add.add(
          "content-encoding-" + coding,
          submit,
          post
              + "Content-Encoding: "
              + coding
              + "\r\nContent-Length: "
              + JOB.length()
              + "\r\n\r\n"
              + JOB,
          Expect.REFUSED);
    }
    add.add(
        "content-encoding-identity",
        submit,
        post + "Content-Encoding: identity\r\nContent-Length: " + JOB.length() + "\r\n\r\n" + JOB,
        Expect.EITHER);
    add.add(
        "gzip-bomb-header-only",
        submit,
        post
            + "Content-Encoding: gzip\r\nContent-Length: 10\r\n\r\n\u001f\u008b\u0008\u0000\u0000\u0000\u0000\u0000\u0000\u0003",
        Expect.REFUSED);

    byte[] nonAsciiHeader =
        bytes(
            get + "X-Bytes: ",
            new byte[] {(byte) 0xFF, (byte) 0xFE},
            "\r\nConnection: close\r\n\r\n");
    out.add(new Probe("RAW non-ascii-header-bytes", list, nonAsciiHeader, null, Expect.EITHER));
    byte[] nonAsciiPath =
        bytes(
            "GET /api/v1/jobs/",
            new byte[] {(byte) 0xFF},
            " HTTP/1.1\r\nHost: localhost\r\n" + auth + "Connection: close\r\n\r\n");
    out.add(new Probe("RAW non-ascii-path-bytes", list, nonAsciiPath, null, Expect.REFUSED));
    byte[] utf8Auth =
        bytes(
            "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ",
            "cl\u00e9".getBytes(StandardCharsets.UTF_8),
            "\r\nConnection: close\r\n\r\n");
    out.add(new Probe("RAW utf8-bearer", list, utf8Auth, null, Expect.REFUSED));
    return out;
  }

  private interface Adder {
    void add(String name, Route route, String text, Expect expect);
  }

  private static Probe probe(String name, Route route, String text, Expect expect) {
    return new Probe(
        "RAW " + name, route, text.getBytes(StandardCharsets.ISO_8859_1), null, expect);
  }

  private static byte[] bytes(String head, byte[] middle, String tail) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(middle);
    out.writeBytes(tail.getBytes(StandardCharsets.ISO_8859_1));
    return out.toByteArray();
  }
}
