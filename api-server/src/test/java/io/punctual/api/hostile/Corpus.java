package io.punctual.api.hostile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.hostile.Hostile.Kind;
import io.punctual.api.hostile.Hostile.Value;
import io.punctual.api.hostile.Probe.Expect;
import io.punctual.api.hostile.Route.BodyKind;
import io.punctual.api.hostile.Route.IdKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Generates the hostile requests for every route of {@link Routes#ALL}: spoiled headers, path ids,
 * query parameters and bodies (every field of every body, with every value {@link Hostile} holds
 * for its kind), each on top of an otherwise valid request, so the one spoiled thing is what the
 * answer is about.
 */
final class Corpus {
  static final String NAMESPACE_HEADER = "Punctual-Namespace";

  /**
   * A valid namespace the corpus names in the namespace header: the API creates its row (active,
   * unlimited) the first time a key submits into it, so it may appear without a 2xx to create it.
   */
  static final String OTHER_NAMESPACE = "other-ns";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The Accept headers probes take in turn: each lets the answer be JSON, so that the spoiled part,
   * not content negotiation, is what the answer is about ({@link #accept} spoils Accept).
   */
  private static final String[] ACCEPTS = {
    null, "application/json", "*/*", "application/json, application/problem+json", "application/*"
  };

  private final String key;
  private final Function<Route, String> seedIds;
  private final String seedJobId;
  private final AtomicInteger names = new AtomicInteger();
  private final List<Probe> probes = new ArrayList<>();

  /**
   * @param seedIds an existing object for a route's {@code {id}} (one per route, so that a probe
   *     that deletes or cancels it spoils no other route's probes)
   * @param seedJobId an existing job, for fields that name one
   */
  Corpus(String key, Function<Route, String> seedIds, String seedJobId) {
    this.key = key;
    this.seedIds = seedIds;
    this.seedJobId = seedJobId;
  }

  List<Probe> build() {
    for (Route route : Routes.ALL) {
      authorization(route);
      accept(route);
      namespace(route);
      methods(route);
      if (route.idKind() != IdKind.NONE) {
        pathIds(route);
      }
      for (String parameter : route.query()) {
        query(route, parameter);
      }
      if (route.query().isEmpty()) {
        // a route that reads no parameter still refuses text no request may carry in one
        add(
            route,
            "query:unread:nul",
            request(route, route.method(), target(route) + "?unread=%00"),
            "unread",
            Expect.REFUSED);
      }
      if (route.body() != BodyKind.NONE) {
        bodies(route);
        contentTypes(route);
        fields(route);
      } else if (!route.method().equals("GET")) {
        add(
            route,
            "json-body-where-none",
            valid(route).json("{\"unexpected\":true}"),
            null,
            Expect.EITHER);
      }
    }
    return List.copyOf(probes);
  }

  /**
   * For an API with keys off ({@code auth.enabled: false}), serving on {@code port}: every route
   * that changes something, otherwise valid (its Host this server's, sent as JSON), under a Host
   * that is not this server's (refused naming {@code Host}) or without a JSON content type (refused
   * naming {@code Content-Type}).
   */
  List<Probe> keysOff(int port) {
    Map<String, String> hosts = new LinkedHashMap<>();
    hosts.put("other-name", "evil.example:" + port);
    hosts.put("other-name-no-port", "evil.example");
    hosts.put("rebound-name", "attacker.example:" + port);
    hosts.put("suffix-of-localhost", "localhost.evil.example:" + port);
    hosts.put("localhost-no-port", "localhost");
    hosts.put("localhost-other-port", "localhost:" + (port == 65535 ? 1 : port + 1));
    hosts.put("other-loopback", "127.0.0.2:" + port);
    hosts.put("other-ipv6", "[::2]:" + port);
    hosts.put("decimal-loopback", "2130706433:" + port);
    // (none at all: Jetty refuses an HTTP/1.1 request without a Host before the API runs)
    Map<String, String> types = new LinkedHashMap<>();
    types.put("text/plain", "text/plain");
    types.put("text/plain-utf8", "text/plain; charset=utf-8");
    types.put("form", "application/x-www-form-urlencoded");
    types.put("multipart", "multipart/form-data; boundary=x");
    types.put("text/json", "text/json");
    types.put("jsonx", "application/jsonx");
    types.put("none", null);
    for (Route route : Routes.ALL) {
      if (route.method().equals("GET")) {
        continue;
      }
      hosts.forEach(
          (label, host) ->
              add(
                  route,
                  "keys-off host:" + label,
                  local(route, port).header("Host", host),
                  "Host",
                  Expect.REFUSED));
      types.forEach(
          (label, type) ->
              add(
                  route,
                  "keys-off content-type:" + label,
                  local(route, port).header("Content-Type", type),
                  "Content-Type",
                  Expect.REFUSED));
    }
    return List.copyOf(probes);
  }

  /** The route's valid request as a keys-off API takes it: its Host, and sent as JSON. */
  private Request local(Route route, int port) {
    Request request = valid(route).header("Host", "localhost:" + port);
    return route.body() == BodyKind.NONE
        ? request.header("Content-Type", "application/json")
        : request;
  }

  // ---- headers -----------------------------------------------------------------------------

  private void authorization(Route route) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("none", null);
    values.put("empty", "");
    values.put("bearer-alone", "Bearer");
    values.put("bearer-space", "Bearer ");
    values.put("bearer-split", "Bearer " + key.substring(0, 10) + " " + key.substring(10));
    values.put("bearer-10kb", "Bearer " + "k".repeat(10 * 1024));
    values.put("bearer-non-ascii", "Bearer cl\u00e9-\u4e2d\u6587");
    values.put("basic", "Basic dXNlcjpwYXNz");
    values.put("unknown-key", "Bearer " + "x".repeat(key.length()));
    values.put("key-prefix-only", "Bearer " + key.substring(0, 12));
    values.put("key-plus-one", "Bearer " + key + "x");
    values.put("bidi", "Bearer \u202e" + key);
    values.forEach(
        (label, value) ->
            add(
                route,
                "auth:" + label,
                valid(route).header("Authorization", value),
                null,
                Expect.REFUSED));
    // RFC 6750: credentials = "Bearer" 1*SP b64token, so two spaces are as good as one
    add(
        route,
        "auth:bearer-two-spaces",
        valid(route).header("Authorization", "Bearer  " + key),
        null,
        Expect.EITHER);
    add(
        route,
        "auth:lower-case-scheme",
        valid(route).header("Authorization", "bearer " + key),
        null,
        Expect.EITHER);
    add(
        route,
        "auth:two-headers",
        valid(route).header("Authorization", "Bearer " + key + "\r\nAuthorization: Basic eA=="),
        null,
        Expect.REFUSED);
  }

  /**
   * Accept headers that take no JSON, or are malformed: a 406 is fine, and so is an answer, but a
   * refusal is problem+json whatever was asked for; and on a route with a body, also when the body
   * is broken (whichever of the two is refused first).
   */
  private void accept(Route route) {
    List<String> values =
        List.of(
            "text/html",
            "application/xml",
            "application/problem+json",
            "image/png, text/*;q=0.5",
            "application/json;q=0",
            "*/*;q=bogus",
            ";;;/==",
            "application/json;" + "p=1;".repeat(500),
            "caf\u00e9/json");
    for (String value : values) {
      String label = value.substring(0, Math.min(value.length(), 24));
      add(route, "accept:" + label, valid(route).header("Accept", value), null, Expect.EITHER);
      if (route.body() != BodyKind.NONE) {
        add(
            route,
            "accept:" + label + ":broken-body",
            valid(route).header("Accept", value).json("{\"type\":"),
            null,
            Expect.REFUSED);
      }
    }
  }

  private void namespace(Route route) {
    Map<String, Expect> values = new LinkedHashMap<>();
    values.put("has space", Expect.REFUSED);
    values.put("{braces}", Expect.REFUSED);
    values.put("../etc", Expect.REFUSED);
    values.put("*", Expect.REFUSED);
    values.put("n".repeat(101), Expect.REFUSED);
    values.put("caf\u00e9", Expect.REFUSED);
    values.put("a\u202eb", Expect.REFUSED);
    values.put("-leading-dash", Expect.REFUSED);
    values.put("", Expect.EITHER);
    values.put(OTHER_NAMESPACE, Expect.EITHER);
    values.forEach(
        (value, expect) ->
            add(
                route,
                "namespace:" + value.substring(0, Math.min(value.length(), 20)),
                valid(route).header(NAMESPACE_HEADER, value),
                expect == Expect.REFUSED ? NAMESPACE_HEADER : null,
                expect));
    add(
        route,
        "namespace:two-headers",
        valid(route).header(NAMESPACE_HEADER, "a\r\n" + NAMESPACE_HEADER + ": b"),
        NAMESPACE_HEADER,
        Expect.REFUSED);
  }

  private void methods(Route route) {
    add(route, "method:PATCH", request(route, "PATCH", target(route)), null, Expect.REFUSED);
    add(route, "method:TRACE", request(route, "TRACE", target(route)), null, Expect.REFUSED);
    add(route, "method:OPTIONS", request(route, "OPTIONS", target(route)), null, Expect.EITHER);
    add(route, "method:HEAD", request(route, "HEAD", target(route)), null, Expect.EITHER);
  }

  // ---- path and query ----------------------------------------------------------------------

  private void pathIds(Route route) {
    String seed = seedIds.apply(route);
    Map<String, Expect> ids = new LinkedHashMap<>();
    ids.put("not-a-uuid", Expect.REFUSED);
    ids.put("%00", Expect.REFUSED);
    ids.put(seed + "%00", Expect.REFUSED);
    ids.put("..%2F..%2Fetc%2Fpasswd", Expect.REFUSED);
    ids.put("%2e%2e", Expect.REFUSED);
    ids.put("x".repeat(10 * 1024), Expect.REFUSED);
    ids.put("a".repeat(2000), Expect.REFUSED);
    ids.put("00000000-0000-0000-0000-000000000000", Expect.REFUSED);
    ids.put("ffffffff-ffff-ffff-ffff-ffffffffffff", Expect.REFUSED);
    ids.put("5f0c2b53-8a3e-4b8e-9c1f-3f1d2e4c5b6a", Expect.REFUSED);
    ids.put("%F0%28%8C%28", Expect.REFUSED);
    ids.put("%ED%A0%80", Expect.REFUSED);
    ids.put("%E2%80%AE" + seed, Expect.REFUSED);
    ids.put("{" + seed + "}", Expect.REFUSED);
    ids.put(seed.replace("-", ""), Expect.EITHER);
    ids.put(seed.toUpperCase(java.util.Locale.ROOT), Expect.EITHER);
    ids.put("1-1-1-1-1", Expect.REFUSED);
    ids.put("-1", Expect.REFUSED);
    if (route.idKind() == IdKind.NAMESPACE) {
      // a namespace's name: what no name may be, and names of no namespace (all as good as absent)
      ids.put("*", Expect.REFUSED);
      ids.put("%2A", Expect.REFUSED);
      ids.put("caf%C3%A9", Expect.REFUSED);
      ids.put("a%20b", Expect.REFUSED);
      ids.put("a%2Fb", Expect.REFUSED);
      ids.put(".hidden", Expect.REFUSED);
      ids.put("n".repeat(101), Expect.REFUSED);
      ids.put("%0A" + seed, Expect.REFUSED);
      ids.put(seed + "%0A", Expect.REFUSED);
      ids.put(seed + "%20", Expect.REFUSED);
      ids.put("no-such-namespace", Expect.REFUSED);
      ids.put(seed + ";x", Expect.EITHER); // a path parameter, which the server may drop
    }
    ids.forEach(
        (id, expect) ->
            add(
                route,
                "path-id:" + id.substring(0, Math.min(id.length(), 24)),
                request(route, route.method(), route.template().replace("{id}", id)),
                null,
                expect));
    add(
        route,
        "path-id:dot-dot",
        request(route, route.method(), route.template().replace("{id}", "../" + seed)),
        null,
        Expect.EITHER);
  }

  private void query(Route route, String parameter) {
    String base = target(route) + "?";
    Map<String, String> refused = new LinkedHashMap<>();
    Map<String, String> either = new LinkedHashMap<>();
    either.put("empty", parameter + "=");
    either.put("bare", parameter);
    either.put("repeated", parameter + "=1&" + parameter + "=2");
    refused.put("nul", parameter + "=%00");
    // percent-encoding that is not UTF-8 decodes to U+FFFD, text like any other (ListJobsIT)
    either.put("invalid-utf8", parameter + "=%FF%FE");
    either.put("lone-surrogate", parameter + "=%ED%A0%80");
    // a type or tag longer than any matches no job: a free-text filter may take it
    (parameter.equals("type") || parameter.equals("tag") ? either : refused)
        .put("5kb", parameter + "=" + "q".repeat(5 * 1024));
    switch (parameter) {
      case "limit", "count" -> {
        refused.put("huge", parameter + "=99999999999999999999");
        refused.put("2^31", parameter + "=2147483648");
        refused.put("negative", parameter + "=-1");
        either.put("zero", parameter + "=0");
        refused.put("fraction", parameter + "=1.5");
        refused.put("exponent", parameter + "=1e3");
        refused.put("hex", parameter + "=0x10");
        refused.put("words", parameter + "=ten");
        either.put("plus", parameter + "=%2B5");
        either.put("padded", parameter + "=%205");
      }
      case "cursor" -> {
        // a schedule or namespace list's cursor is the last name seen, and any name is one:
        // forging one only starts the page elsewhere (the namespaces listed are still the key's)
        boolean nameCursor =
            route.template().equals("/api/v1/schedules")
                || route.template().equals("/api/v1/namespaces")
                || route.template().equals("/api/v1/alert-rules");
        Map<String, String> forged = nameCursor ? either : refused;
        forged.put("forged-json", "cursor=eyJ4IjoxfQ");
        forged.put("forged-padded", "cursor=eyJ4IjoxfQ%3D%3D");
        forged.put("empty-json", "cursor=e30");
        forged.put("uuid-like", "cursor=MDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAw");
        forged.put("huge-number", "cursor=OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ");
        forged.put("comma", "cursor=YSxi");
        refused.put("non-utf8", "cursor=_w");
        refused.put("non-utf8-std", "cursor=%2Fw%3D%3D");
        refused.put("not-base64", "cursor=!!!");
        // base64 of a NUL for the base64 cursors; a namespace cursor is a plain name, and AA is one
        (route.template().equals("/api/v1/namespaces") ? either : refused)
            .put("nul-inside", "cursor=AA");
      }
      case "from", "to" -> {
        refused.put("year-0", parameter + "=0000-01-01T00:00:00Z");
        refused.put("year-99999", parameter + "=%2B99999-01-01T00:00:00Z");
        refused.put("feb-30", parameter + "=2026-02-30T00:00:00Z");
        refused.put("words", parameter + "=yesterday");
        refused.put("min", parameter + "=-999999999-01-01T00:00:00Z");
        either.put("epoch", parameter + "=1970-01-01T00:00:00Z");
        either.put("unencoded-plus", parameter + "=2026-01-01T00:00:00+01:00");
      }
      case "status" -> {
        refused.put("unknown", "status=bogus");
        either.put("lower-case", "status=pending");
        either.put("list", "status=PENDING,RUNNING");
      }
      case "payload" -> {
        // URL-encoded JSON: what jsonb cannot hold is refused before any statement
        refused.put("json-nul-key", "payload=%7B%22a%5Cu0000%22%3A1%7D");
        refused.put("json-nul-value", "payload=%7B%22a%22%3A%22%5Cu0000%22%7D");
        refused.put("json-surrogate", "payload=%7B%22a%22%3A%22%5Cud800%22%7D");
        refused.put("json-infinite", "payload=%7B%22n%22%3A1e400%7D");
        refused.put("json-array", "payload=%5B1%5D");
        refused.put("not-json", "payload=%E2%80%AEx");
        either.put("json-object", "payload=%7B%22a%22%3A1%7D");
      }
      default -> {
        either.put("bidi", parameter + "=%E2%80%AEx");
        either.put("long", parameter + "=" + "t".repeat(300));
      }
    }
    refused.forEach(
        (label, query) ->
            add(
                route,
                "query:" + parameter + ":" + label,
                request(route, route.method(), base + query),
                parameter,
                Expect.REFUSED));
    either.forEach(
        (label, query) ->
            add(
                route,
                "query:" + parameter + ":" + label,
                request(route, route.method(), base + query),
                parameter,
                Expect.EITHER));
  }

  // ---- bodies --------------------------------------------------------------------------------

  private void bodies(Route route) {
    Map<String, String> malformed = new LinkedHashMap<>();
    malformed.put("empty", "");
    malformed.put("whitespace", "   \n ");
    malformed.put("not-json", "hello");
    malformed.put("truncated", "{\"type\":");
    malformed.put("trailing-json", validBody(route) + " {}");
    malformed.put("trailing-garbage", validBody(route) + "x");
    malformed.put("duplicate-key", "{\"a\":1,\"a\":2}");
    malformed.put("nested-arrays-10000", Hostile.nested(10_000));
    malformed.put("nested-objects-10000", Hostile.nestedObjects(10_000));
    malformed.put("single-quotes", "{'type':'x'}");
    malformed.put("comments", "{/* c */\"type\":\"x\"}");
    malformed.put("nan", "{\"type\":\"x\",\"priority\":NaN}");
    malformed.put("raw-nul", "{\"type\":\"a\u0000b\"}");
    malformed.put("raw-newline-in-string", "{\"type\":\"a\nb\"}");
    malformed.put("unquoted-key", "{type:\"x\"}");
    malformed.put("bad-escape", "{\"type\":\"\\x41\"}");
    malformed.put("short-escape", "{\"type\":\"\\u12\"}");
    malformed.forEach(
        (label, text) ->
            add(route, "body:" + label, valid(route).json(text), null, Expect.REFUSED));
    Map<String, String> wrongShape = new LinkedHashMap<>();
    wrongShape.put("null", "null");
    wrongShape.put("array", "[" + validBody(route) + "]");
    wrongShape.put("empty-array", "[]");
    wrongShape.put("string", "\"x\"");
    wrongShape.put("number", "42");
    wrongShape.put("true", "true");
    wrongShape.forEach(
        (label, text) ->
            add(route, "body:" + label, valid(route).json(text), null, Expect.REFUSED));
    // an empty quota is a valid one (no limits); every other body needs fields
    add(
        route,
        "body:empty-object",
        valid(route).json("{}"),
        null,
        route.body() == BodyKind.QUOTA
                || route.body() == BodyKind.CLAIM
                || route.body() == BodyKind.HEARTBEAT
            ? Expect.EITHER
            : Expect.REFUSED);
    byte[] invalidUtf8 = {'{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xC3, 0x28, '"', '}'};
    add(
        route,
        "body:invalid-utf8",
        valid(route).body("application/json", invalidUtf8),
        null,
        Expect.REFUSED);
    byte[] overlong = {
      '{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'
    };
    add(
        route,
        "body:overlong-nul",
        valid(route).body("application/json", overlong),
        null,
        Expect.REFUSED);
    byte[] cesu = {
      '{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'
    };
    add(
        route,
        "body:utf8-surrogate",
        valid(route).body("application/json", cesu),
        null,
        Expect.REFUSED);
    add(
        route,
        "body:utf16",
        valid(route).body("application/json", validBody(route).getBytes(StandardCharsets.UTF_16)),
        null,
        Expect.EITHER);
    byte[] bom = ("\uFEFF" + validBody(route)).getBytes(StandardCharsets.UTF_8);
    add(route, "body:bom", valid(route).body("application/json", bom), null, Expect.EITHER);
    add(
        route,
        "body:unknown-field",
        valid(route).json(withField(route, "bogusField", "1")),
        culprit(route, "bogusField"),
        Expect.REFUSED);
    add(
        route,
        "body:unknown-nul-field",
        valid(route).json(withField(route, "bo" + Hostile.NUL + "gus", "1")),
        null,
        Expect.REFUSED);
    add(
        route,
        "body:unknown-10kb-field",
        valid(route).json(withField(route, Hostile.GARBAGE, "1")),
        null,
        Expect.REFUSED);
    add(
        route,
        "body:duplicate-known-field",
        valid(route).json(validBody(route).replaceFirst("\\{", "{\"type\":\"first\",")),
        null,
        Expect.REFUSED);
    add(
        route,
        "body:over-max-request",
        valid(route).json("{\"type\":\"" + "b".repeat(70 * 1024) + "\"}"),
        null,
        Expect.REFUSED);
  }

  private void contentTypes(Route route) {
    Map<String, Expect> types = new LinkedHashMap<>();
    types.put("text/plain", Expect.REFUSED);
    types.put("application/xml", Expect.REFUSED);
    types.put("application/x-www-form-urlencoded", Expect.REFUSED);
    types.put("multipart/form-data; boundary=x", Expect.REFUSED);
    types.put("application/json; charset=latin1", Expect.EITHER);
    types.put("application/json; charset=bogus-charset", Expect.EITHER);
    types.put("application/json; charset=utf-16", Expect.EITHER);
    types.put("application/merge-patch+json", Expect.REFUSED);
    types.put("application/*", Expect.EITHER);
    types.put("*/*", Expect.EITHER);
    types.put("application", Expect.REFUSED);
    types.put("", Expect.EITHER);
    byte[] body = validBody(route).getBytes(StandardCharsets.UTF_8);
    types.forEach(
        (type, expect) ->
            add(route, "content-type:" + type, valid(route).body(type, body), null, expect));
    add(
        route,
        "content-type:none",
        valid(route).body("x", body).header("Content-Type", null),
        null,
        Expect.EITHER);
  }

  /** Every field of the route's body, set to every hostile value of its kind. */
  private void fields(Route route) {
    bodyFields(route.body())
        .forEach(
            (field, kind) -> {
              for (Value value : Hostile.of(kind, seedJobId)) {
                String text = withField(route, field, value.json());
                // a bulk action's filter is a search, not stored: a value a job's field refuses
                // (an empty type, a 2 KB payload) may match nothing, so only the answer's form is
                // checked; unparseable JSON is still refused
                Expect expect =
                    field.startsWith("filter") && value.named() ? Expect.EITHER : value.expect();
                add(
                    route,
                    "field:" + field + ":" + value.label(),
                    valid(route).json(text),
                    value.named() ? culprit(route, field) : null,
                    expect);
              }
            });
  }

  static Map<String, Kind> bodyFields(BodyKind body) {
    Map<String, Kind> fields = new LinkedHashMap<>();
    switch (body) {
      case JOB, BATCH, WORKFLOW -> {
        if (body == BodyKind.WORKFLOW) {
          fields.put("ref", Kind.REQUIRED_TEXT);
          fields.put("parent", Kind.TEXT);
        }
        fields.put("type", Kind.REQUIRED_TEXT);
        fields.put("payload", Kind.PAYLOAD);
        fields.put("runAt", Kind.INSTANT);
        fields.put("delay", Kind.DURATION);
        fields.put("priority", Kind.CHOICE);
        fields.put("maxAttempts", Kind.INTEGER);
        fields.put("backoff", Kind.BACKOFF);
        fields.put("timeout", Kind.DURATION);
        if (body != BodyKind.WORKFLOW) {
          fields.put("idempotencyKey", Kind.TEXT);
          fields.put("parentId", Kind.JOB_ID);
        }
        fields.put("tags", Kind.TAGS);
        fields.put("callback", Kind.CALLBACK);
        fields.put("runCondition", Kind.CHOICE);
        fields.put("dependsOn", body == BodyKind.WORKFLOW ? Kind.STEP_DEPENDS_ON : Kind.DEPENDS_ON);
      }
      case SCHEDULE, SCHEDULE_REPLACE -> {
        fields.put("name", Kind.REQUIRED_TEXT);
        fields.put("initIdentifier", Kind.TEXT);
        fields.put("cron", Kind.CRON);
        fields.put("every", Kind.EVERY);
        fields.put("timezone", Kind.ZONE);
        fields.put("dst", Kind.DST);
        fields.put("misfire", Kind.CHOICE);
        fields.put("overlap", Kind.CHOICE);
        fields.put("startAt", Kind.INSTANT);
        fields.put("endAt", Kind.INSTANT);
        fields.put("type", Kind.REQUIRED_TEXT);
        fields.put("payload", Kind.PAYLOAD);
        fields.put("priority", Kind.CHOICE);
        fields.put("maxAttempts", Kind.INTEGER);
        fields.put("backoff", Kind.BACKOFF);
        fields.put("timeout", Kind.DURATION);
        fields.put("tags", Kind.TAGS);
        fields.put("callback", Kind.CALLBACK);
      }
      case KEY -> {
        fields.put("name", Kind.REQUIRED_TEXT);
        fields.put("role", Kind.ROLE);
        fields.put("namespaces", Kind.NAMESPACES);
        fields.put("expiresAt", Kind.EXPIRY);
      }
      case NAMESPACE -> {
        fields.put("name", Kind.NAMESPACE_NAME);
        fields.put("weight", Kind.WEIGHT);
        fields.put("quota", Kind.QUOTA);
        fields.put("quota.submitsPerSecond", Kind.RATE);
        fields.put("quota.burst", Kind.RATE);
        fields.put("quota.maxPending", Kind.COUNT);
        fields.put("quota.maxPayloadBytes", Kind.INTEGER);
        fields.put("quota.maxRunning", Kind.RUNNING_CAP);
        fields.put("quota.maxTimeout", Kind.DURATION);
      }
      case WEIGHT -> fields.put("weight", Kind.WEIGHT);
      case QUOTA -> {
        fields.put("submitsPerSecond", Kind.RATE);
        fields.put("burst", Kind.RATE);
        fields.put("maxPending", Kind.COUNT);
        fields.put("maxPayloadBytes", Kind.INTEGER);
        fields.put("maxRunning", Kind.RUNNING_CAP);
        fields.put("maxTimeout", Kind.DURATION);
      }
      case EGRESS -> {
        fields.put("allow", Kind.EGRESS_ALLOW);
        fields.put("keepResponse", Kind.FLAG);
      }
      case BULK_ACTION -> {
        fields.put("action", Kind.CHOICE);
        fields.put("filter", Kind.PAYLOAD);
        fields.put("filter.status", Kind.TEXT);
        fields.put("filter.type", Kind.TEXT);
        fields.put("filter.from", Kind.INSTANT);
        fields.put("filter.idempotencyKey", Kind.TEXT);
        fields.put("filter.payload", Kind.PAYLOAD);
      }
      case ALERT_RULE -> {
        fields.put("name", Kind.REQUIRED_TEXT);
        fields.put("cooldown", Kind.DURATION);
        fields.put("when", Kind.PAYLOAD);
        fields.put("when.event", Kind.CHOICE);
        fields.put("when.type", Kind.TEXT);
        fields.put("when.scheduleId", Kind.JOB_ID);
        fields.put("notify", Kind.PAYLOAD);
        fields.put("notify.webhook", Kind.TEXT);
      }
      case WORKER_REGISTRATION -> {
        fields.put("types", Kind.TYPES);
        fields.put("concurrency", Kind.INTEGER);
      }
      case CLAIM -> {
        fields.put("max", Kind.INTEGER);
        fields.put("waitMs", Kind.MILLIS);
      }
      case HEARTBEAT -> {
        fields.put("jobId", Kind.ANY_JOB_ID);
        fields.put("attempt", Kind.INTEGER);
        fields.put("progress", Kind.PROGRESS);
        fields.put("logs", Kind.LINES);
      }
      case COMPLETION -> {
        fields.put("jobId", Kind.ANY_JOB_ID);
        fields.put("attempt", Kind.INTEGER);
        fields.put("status", Kind.CHOICE);
        fields.put("error", Kind.REQUIRED_TEXT);
        fields.put("retryable", Kind.FLAG);
        fields.put("retryAfterMs", Kind.MILLIS);
      }
      case NONE -> {}
    }
    return fields;
  }

  // ---- valid requests to spoil ---------------------------------------------------------------

  private String target(Route route) {
    return route.idKind() == IdKind.NONE
        ? route.template()
        : route.template().replace("{id}", seedIds.apply(route));
  }

  private Request request(Route route, String method, String target) {
    Request request = new Request(method, target, key);
    if (route.body() != BodyKind.NONE && !method.equals("GET") && !method.equals("HEAD")) {
      request.json(validBody(route));
    }
    return request;
  }

  private Request valid(Route route) {
    return request(route, route.method(), target(route));
  }

  /** The object the route's fields live in, valid; {@link #wrap} puts it in the body. */
  private ObjectNode validObject(Route route) {
    ObjectNode node = JSON.createObjectNode();
    switch (route.body()) {
      case JOB, BATCH -> node.put("type", "hostile").putObject("payload").put("n", 1);
      case WORKFLOW -> node.put("ref", "a").put("type", "hostile");
      case SCHEDULE, SCHEDULE_REPLACE ->
          node.put("name", "hostile-" + names.incrementAndGet())
              .put("every", "PT1H")
              .put("type", "hostile");
      case KEY ->
          node.put("name", "hostile-" + names.incrementAndGet())
              .put("role", "viewer")
              .putArray("namespaces")
              .add("*");
      case NAMESPACE -> {
        node.put("name", "hostile-ns-" + names.incrementAndGet());
        quota(node.putObject("quota"));
      }
      case QUOTA -> quota(node);
      case WEIGHT -> node.put("weight", 2);
      case EGRESS -> {
        node.putArray("allow");
        node.put("keepResponse", false);
      }
      case BULK_ACTION -> {
        node.put("action", "retry").put("dryRun", true);
        node.putObject("filter").put("status", "FAILED");
      }
      case ALERT_RULE -> {
        node.put("name", "hostile-" + names.incrementAndGet());
        node.putObject("when").put("event", "job_failed");
        node.putObject("notify").put("webhook", "https://example.com/hook");
      }
      case WORKER_REGISTRATION -> {
        node.putArray("types").add("hostile-remote");
        node.put("concurrency", 4);
      }
      // no wait: a claim that finds nothing answers at once
      case CLAIM -> node.put("max", 2).put("waitMs", 0);
      // an attempt the worker does not hold: the answer names it to stop
      case HEARTBEAT -> node.put("jobId", seedJobId).put("attempt", 1);
      // refused as not held (409), after every field was checked
      case COMPLETION ->
          node.put("jobId", seedJobId)
              .put("attempt", 1)
              .put("status", "failed")
              .put("error", "boom")
              .put("retryable", false)
              .put("retryAfterMs", 1000);
      case NONE -> {}
    }
    return node;
  }

  /** A quota that limits everything, far above what the corpus sends. */
  private static void quota(ObjectNode node) {
    node.put("submitsPerSecond", 100_000)
        .put("burst", 100_000)
        .put("maxPending", 1_000_000)
        .put("maxPayloadBytes", 65_536);
  }

  private String wrap(Route route, String inner) {
    return wrap(route, inner, true);
  }

  /** {@code linked}: the second step of a workflow waits for the first (by its ref, "a"). */
  private String wrap(Route route, String inner, boolean linked) {
    return switch (route.body()) {
      case BATCH -> "{\"jobs\":[" + inner + "]}";
      case HEARTBEAT -> "{\"attempts\":[" + inner + "]}";
      case WORKFLOW ->
          "{\"jobs\":["
              + inner
              + ",{\"ref\":\"b\",\"type\":\"hostile\""
              + (linked ? ",\"dependsOn\":[{\"ref\":\"a\"}]" : "")
              + "}]}";
      default -> inner;
    };
  }

  private String validBody(Route route) {
    return wrap(route, validObject(route).toString());
  }

  /**
   * The valid body with {@code field} set to the raw JSON {@code json}; {@code parent.child} sets a
   * field of the object {@code parent}.
   */
  private String withField(Route route, String field, String json) {
    int dot = field.indexOf('.');
    if (dot > 0) {
      ObjectNode object = validObject(route);
      String parent = field.substring(0, dot);
      ObjectNode inner = (ObjectNode) object.get(parent);
      return withRaw(object, parent, withRaw(inner, field.substring(dot + 1), json));
    }
    ObjectNode object = validObject(route);
    object.remove(field);
    if (field.equals("cron")) {
      object.remove("every"); // one or the other, so cron's own checks are what answers
    }
    if (field.equals("runCondition") && route.body() != BodyKind.WORKFLOW) {
      object.put("parentId", seedJobId);
    }
    String text = object.toString();
    String quotedName = JSON.getNodeFactory().textNode(field).toString();
    if (field.contains(Hostile.NUL.substring(0, 2))) {
      quotedName = "\"" + field + "\""; // keep the escape as written
    }
    String inner =
        text.substring(0, text.length() - 1)
            + (object.isEmpty() ? "" : ",")
            + quotedName
            + ":"
            + json
            + "}";
    // a step whose ref is spoiled leaves nothing for the other step to wait for
    return wrap(route, inner, !field.equals("ref"));
  }

  /** {@code object} as JSON text with {@code field} set to the raw JSON {@code json}. */
  private static String withRaw(ObjectNode object, String field, String json) {
    object.remove(field);
    String text = object.toString();
    return text.substring(0, text.length() - 1)
        + (object.isEmpty() ? "" : ",")
        + JSON.getNodeFactory().textNode(field).toString()
        + ":"
        + json
        + "}";
  }

  private static String culprit(Route route, String field) {
    return switch (route.body()) {
      case BATCH, WORKFLOW -> "jobs[0]." + field;
      case HEARTBEAT -> "attempts[0]." + field;
      default -> field;
    };
  }

  private void add(Route route, String name, Request request, String culprit, Expect expect) {
    String accept = ACCEPTS[probes.size() % ACCEPTS.length];
    if (accept != null && !name.startsWith("accept:")) {
      request.header("Accept", accept);
    }
    probes.add(new Probe(route.name() + " " + name, route, request.bytes(), culprit, expect));
  }
}
