package io.punctual.api.hostile;

import io.punctual.api.hostile.Probe.Expect;
import java.util.List;

/**
 * The catalogue of hostile JSON values, by the kind of field they are aimed at. Each is raw JSON
 * text (so that it can be what no JSON library would write: {@code 1e400}, {@code -0}, a lone
 * surrogate escape) with whether the field must refuse it.
 */
final class Hostile {
  private Hostile() {}

  /** 10 KB that must never come back in an answer; {@link #GARBAGE_MARK} finds it. */
  static final String GARBAGE_MARK = "zq9GARBAGEzq9";

  static final String GARBAGE = (GARBAGE_MARK + "\u00e9\u4e2d").repeat(10 * 1024 / 16);

  /**
   * What an answer must not hold: more of the garbage than a problem shows of a field's name (a
   * field path is cut at 200 characters, so an unknown field named with garbage is named by its
   * start).
   */
  static final String GARBAGE_ECHO = GARBAGE.substring(0, 256);

  static final String NUL = "\\u0000";

  /**
   * One hostile value: its label, its raw JSON text, whether it must be refused, and whether the
   * refusal must name the field ({@code false} for JSON the parser stops at, which is refused as
   * malformed before any field is read).
   */
  record Value(String label, String json, Expect expect, boolean named) {}

  /** The kinds of field the request bodies have. */
  enum Kind {
    TEXT,
    REQUIRED_TEXT,
    INTEGER,
    DURATION,
    EVERY,
    INSTANT,
    CHOICE,
    JOB_ID,
    TAGS,
    NAMESPACES,
    PAYLOAD,
    BACKOFF,
    CALLBACK,
    DEPENDS_ON,
    STEP_DEPENDS_ON,
    CRON,
    ZONE,
    DST,
    /** A namespace's name in a body (the name of one to create). */
    NAMESPACE_NAME,
    /** A key's role. */
    ROLE,
    /** A key's expiry: an instant, in the future. */
    EXPIRY,
    /** A submit rate or burst of a quota: 1 to 1 000 000. */
    RATE,
    /** A quota's maxPending: 0 to 10^12 (a long). */
    COUNT,
    /** A quota as an object (in a namespace to create). */
    QUOTA,
    /** A namespace's weight: 1 to 1000. */
    WEIGHT,
    /** A quota's maxRunning: 1 to 10 000. */
    RUNNING_CAP,
    /** An egress grant's list of CIDR blocks, addresses and host names. */
    EGRESS_ALLOW,
    /** A true or false. */
    FLAG,
    /** Milliseconds that may be zero (a claim's waitMs, a completion's retryAfterMs). */
    MILLIS,
    /** A job id the request only names (the worker protocol): any well-formed id is taken. */
    ANY_JOB_ID,
    /** A remote worker's job types: 1 to 100 distinct non-blank names. */
    TYPES,
    /** An attempt's progress: {"percent"} or {"done", "total"}. */
    PROGRESS,
    /** New log lines of an attempt: at most 100 strings. */
    LINES
  }

  private static Value refused(String label, String json) {
    return new Value(label, json, Expect.REFUSED, true);
  }

  private static Value malformed(String label, String json) {
    return new Value(label, json, Expect.REFUSED, false);
  }

  private static Value either(String label, String json) {
    return new Value(label, json, Expect.EITHER, true);
  }

  private static String quoted(String text) {
    return "\"" + text + "\"";
  }

  static String nested(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }

  static String nestedObjects(int depth) {
    return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
  }

  /** What every field must refuse whatever its kind: values of every other JSON type. */
  private static final List<Value> WRONG_TYPES =
      List.of(
          refused("true", "true"),
          refused("1e400", "1e400"),
          malformed("nested-10000", nested(10_000)),
          new Value("null", "null", Expect.EITHER, false));

  private static final List<Value> BAD_TEXT =
      List.of(
          refused("number", "123"),
          refused("object", "{}"),
          refused("array", "[\"a\"]"),
          refused("empty", "\"\""),
          refused("blank", "\"   \""),
          refused("nul", quoted("a" + NUL + "b")),
          refused("lone-high-surrogate", quoted("a\\ud800b")),
          refused("lone-low-surrogate", quoted("\\udc00")),
          refused("reversed-pair", quoted("\\udc00\\ud800")),
          refused("10kb", quoted(GARBAGE)),
          either("bidi-override", quoted("invoice\\u202Efdp.exe")),
          either("zero-width", quoted("\\u200b")),
          either("emoji", quoted("\\ud83d\\ude00")),
          either("escapes", quoted("\\\"\\\\/\\b\\f\\n\\r\\t")));

  static List<Value> of(Kind kind, String seedJobId) {
    List<Value> specific =
        switch (kind) {
          case TEXT, REQUIRED_TEXT -> BAD_TEXT;
          case INTEGER ->
              List.of(
                  refused("string", "\"3\""),
                  refused("fraction", "1.5"),
                  refused("zero", "0"),
                  refused("negative", "-1"),
                  refused("negative-zero", "-0"),
                  refused("2^63", "9223372036854775808"),
                  refused("2^31", "2147483648"),
                  refused("-2^63-1", "-9223372036854775809"),
                  refused("huge", "1" + "0".repeat(400)),
                  either("1e1", "1e1"),
                  either("1.0", "1.0"),
                  refused("array", "[3]"));
          case DURATION, EVERY ->
              List.of(
                  refused("P9999999999D", "\"P9999999999D\""),
                  refused("max-seconds", "\"PT9223372036854775807S\""),
                  either("1000-years", "\"P365000D\""),
                  refused("1000-years-and-a-second", "\"P365000DT1S\""),
                  refused("over-max-seconds", "\"PT9223372036854775808S\""),
                  refused("PT", "\"PT\""),
                  refused("P", "\"P\""),
                  refused("1h", "\"1h\""),
                  refused("negative", "\"-PT1S\""),
                  refused("negative-inside", "\"PT-1S\""),
                  either("zero", "\"PT0S\""),
                  refused("years", "\"P1Y\""),
                  refused("ten-fraction-digits", "\"PT1.0000000001S\""),
                  refused("number", "5"),
                  refused("nul", quoted("PT1S" + NUL)),
                  refused("surrogate", quoted("PT1S\\ud800")),
                  refused("10kb", quoted(GARBAGE)));
          case INSTANT ->
              List.of(
                  refused("year-0", "\"0000-01-01T00:00:00Z\""),
                  refused("year-99999", "\"+99999-01-01T00:00:00Z\""),
                  refused("feb-30", "\"2026-02-30T00:00:00Z\""),
                  refused("month-13", "\"2026-13-01T00:00:00Z\""),
                  either("hour-24", "\"2026-01-01T24:00:00Z\""),
                  refused("words", "\"yesterday\""),
                  refused("date-only", "\"2026-01-01\""),
                  refused("no-offset", "\"2026-01-01T00:00:00\""),
                  refused("epoch-number", "0"),
                  refused("min-year", "\"-999999999-01-01T00:00:00Z\""),
                  refused("past-instant-max", "\"+1000000000-01-01T00:00:00Z\""),
                  refused("offset-25h", "\"2026-01-01T00:00:00+25:00\""),
                  refused("before-epoch", "\"1969-12-31T23:59:59.999999999Z\""),
                  either("epoch", "\"1970-01-01T00:00:00Z\""),
                  either("latest", "\"4000-01-01T00:00:00Z\""),
                  refused("after-latest", "\"4000-01-01T00:00:00.001Z\""),
                  refused("job-id-limit", "\"+10889-08-02T05:31:50.655Z\""),
                  refused("nul", quoted("2030-01-01T00:00:00Z" + NUL)),
                  refused("10kb", quoted(GARBAGE)));
          case CHOICE ->
              List.of(
                  refused("unknown", "\"bogus\""),
                  refused("empty", "\"\""),
                  refused("number", "1"),
                  refused("nul", quoted("high" + NUL)),
                  refused("surrogate", quoted("\\ud800")),
                  refused("array", "[\"high\"]"),
                  refused("object", "{}"),
                  either("upper-case", "\"HIGH\""),
                  refused("10kb", quoted(GARBAGE)));
          case JOB_ID ->
              List.of(
                  refused("not-uuid", "\"not-a-uuid\""),
                  refused("nil-uuid", "\"00000000-0000-0000-0000-000000000000\""),
                  refused("max-uuid", "\"ffffffff-ffff-ffff-ffff-ffffffffffff\""),
                  refused("random-uuid", "\"5f0c2b53-8a3e-4b8e-9c1f-3f1d2e4c5b6a\""),
                  refused("braced", "\"{" + seedJobId + "}\""),
                  refused("nul", quoted(seedJobId + NUL)),
                  refused("number", "1"),
                  refused("empty", "\"\""),
                  refused("10kb", quoted(GARBAGE)),
                  either("upper-case-seed", quoted(seedJobId.toUpperCase(java.util.Locale.ROOT))));
          case NAMESPACES -> namespaces();
          case NAMESPACE_NAME -> namespaceNames();
          case ROLE -> concat(of(Kind.CHOICE, seedJobId), roles());
          case EXPIRY -> concat(of(Kind.INSTANT, seedJobId), expiries());
          case RATE -> concat(of(Kind.INTEGER, seedJobId), rates());
          case COUNT -> counts();
          case QUOTA -> quotas();
          case WEIGHT -> weights();
          case RUNNING_CAP -> runningCaps();
          case EGRESS_ALLOW -> egressAllows();
          case FLAG -> flags();
          case MILLIS -> millis();
          case ANY_JOB_ID -> anyJobIds(seedJobId);
          case TYPES -> types();
          case PROGRESS -> progress();
          case LINES -> lines();
          case TAGS ->
              List.of(
                  refused("string", "\"x\""),
                  refused("numbers", "[1]"),
                  refused("nulls", "[null]"),
                  refused("empty-entry", "[\"\"]"),
                  refused("nul", "[" + quoted("a" + NUL) + "]"),
                  refused("surrogate", "[" + quoted("\\udfff") + "]"),
                  refused("10kb", "[" + quoted(GARBAGE) + "]"),
                  refused("1000-entries", "[" + "\"t\",".repeat(999) + "\"t\"]"),
                  refused("nested", "[[]]"),
                  refused("object", "{}"),
                  either("empty", "[]"),
                  either("duplicates", "[\"dup\",\"dup\"]"),
                  either("bidi", "[\"a\\u202Eb\"]"));
          case PAYLOAD ->
              List.of(
                  refused("2kb", "{\"x\":\"" + "p".repeat(2048) + "\"}"),
                  refused("nul-key", "{\"a" + NUL + "\":1}"),
                  refused("surrogate-value", "{\"a\":\"\\ud800\"}"),
                  refused("surrogate-key", "{\"\\udbff\":1}"),
                  either("string", "\"text\""),
                  either("array", "[1,2]"),
                  either("number", "1"),
                  refused("1e400-inside", "{\"n\":1e400}"),
                  refused("-1e400-inside", "{\"n\":-1e400}"),
                  either("negative-zero-inside", "{\"n\":-0}"),
                  either("2^63-inside", "{\"n\":9223372036854775808}"),
                  either("tiny-inside", "{\"n\":1e-400}"),
                  either("big-decimal-inside", "{\"n\":0." + "1".repeat(300) + "}"),
                  either("depth-100", nestedObjects(100)),
                  malformed("depth-10000-objects", nestedObjects(10_000)),
                  either("bidi-inside", "{\"\\u202E\":\"\\u202E\"}"));
          case BACKOFF ->
              List.of(
                  refused("string", "\"exponential\""),
                  refused("array", "[]"),
                  refused("unknown-strategy", "{\"strategy\":\"bogus\"}"),
                  refused("factor-1e400", "{\"strategy\":\"exponential\",\"factor\":1e400}"),
                  refused("factor-negative", "{\"strategy\":\"exponential\",\"factor\":-1}"),
                  refused("factor-string", "{\"strategy\":\"exponential\",\"factor\":\"NaN\"}"),
                  refused(
                      "initial-enormous",
                      "{\"strategy\":\"exponential\",\"initialDelay\":\"P9999999999D\"}"),
                  refused(
                      "max-enormous",
                      "{\"strategy\":\"exponential\",\"initialDelay\":\"PT1S\","
                          + "\"maxDelay\":\"P9999999999D\",\"factor\":1e300}"),
                  refused("fixed-negative", "{\"strategy\":\"fixed\",\"delay\":\"-PT1S\"}"),
                  refused("fixed-missing", "{\"strategy\":\"fixed\"}"),
                  refused("intervals-empty", "{\"strategy\":\"intervals\",\"intervals\":[]}"),
                  refused(
                      "intervals-enormous",
                      "{\"strategy\":\"intervals\",\"intervals\":[\"P9999999999D\"]}"),
                  refused(
                      "intervals-2000",
                      "{\"strategy\":\"intervals\",\"intervals\":["
                          + "\"PT1S\",".repeat(1999)
                          + "\"PT1S\"]}"),
                  refused("unknown-field", "{\"strategy\":\"exponential\",\"bogus\":1}"),
                  refused("jitter-string", "{\"strategy\":\"exponential\",\"jitter\":\"yes\"}"));
          case CALLBACK ->
              List.of(
                  refused("string", "\"https://example.com\""),
                  refused("empty", "{}"),
                  refused("ftp", "{\"url\":\"ftp://example.com/x\"}"),
                  refused("nul-url", "{\"url\":\"https://exa" + NUL + "mple.com\"}"),
                  refused("space-url", "{\"url\":\"https://a b.com\"}"),
                  refused("unclosed-ipv6", "{\"url\":\"http://[::1\"}"),
                  refused("10kb-url", "{\"url\":\"https://example.com/" + GARBAGE + "\"}"),
                  refused(
                      "header-number", "{\"url\":\"https://example.com\",\"headers\":{\"X\":1}}"),
                  refused(
                      "header-bad-name",
                      "{\"url\":\"https://example.com\",\"headers\":{\"a b\":\"x\"}}"),
                  refused(
                      "header-crlf",
                      "{\"url\":\"https://example.com\",\"headers\":{\"X\":\"a\\r\\nSet-Cookie: b\"}}"),
                  either(
                      "header-10kb",
                      "{\"url\":\"https://example.com\",\"headers\":{\"X\":\"" + GARBAGE + "\"}}"),
                  refused("unknown-field", "{\"url\":\"https://example.com\",\"bogus\":1}"),
                  either("loopback", "{\"url\":\"http://127.0.0.1:1/x\"}"));
          case DEPENDS_ON ->
              List.of(
                  refused("string", "\"x\""),
                  refused("number-entry", "[1]"),
                  refused("bad-id", "[{\"id\":\"bad\"}]"),
                  refused("unknown-id", "[{\"id\":\"5f0c2b53-8a3e-4b8e-9c1f-3f1d2e4c5b6a\"}]"),
                  refused("ref-outside-workflow", "[{\"ref\":\"a\"}]"),
                  refused(
                      "required-string", "[{\"id\":\"" + seedJobId + "\",\"required\":\"yes\"}]"),
                  refused("empty-entry", "[{}]"),
                  refused("object", "{}"),
                  refused("unknown-entry-field", "[{\"id\":\"" + seedJobId + "\",\"bogus\":1}]"),
                  either("duplicate", "[\"" + seedJobId + "\",\"" + seedJobId + "\"]"),
                  refused("1500-entries", "[" + ("\"" + seedJobId + "\",").repeat(1499) + "1]"));
          case STEP_DEPENDS_ON ->
              List.of(
                  refused("unknown-ref", "[{\"ref\":\"zzz\"}]"),
                  refused("itself", "[{\"ref\":\"a\"}]"),
                  refused("ref-number", "[{\"ref\":1}]"),
                  refused("ref-nul", "[{\"ref\":\"a" + NUL + "\"}]"),
                  refused("ref-and-id", "[{\"ref\":\"b\",\"id\":\"" + seedJobId + "\"}]"),
                  refused("string", "\"b\""));
          case CRON ->
              List.of(
                  refused("eight-fields", "\"* * * * * * * *\""),
                  refused("empty", "\"\""),
                  refused("minute-60", "\"60 * * * *\""),
                  refused("never-feb-30", "\"0 0 30 2 *\""),
                  refused("step-zero", "\"*/0 * * * *\""),
                  refused("huge-range", "\"0-99999999999999999999 * * * *\""),
                  refused("nul", quoted("* * * * *" + NUL)),
                  refused("10kb", quoted(GARBAGE)),
                  refused("number", "1"),
                  either("leap-day", "\"0 0 29 2 *\""),
                  either("macro", "\"@yearly\""));
          case ZONE ->
              List.of(
                  refused("unknown", "\"Mars/Olympus_Mons\""),
                  refused("empty", "\"\""),
                  refused("path", "\"../../etc/passwd\""),
                  refused("offset-25", "\"+25:00\""),
                  refused("nul", quoted("UTC" + NUL)),
                  refused("number", "1"),
                  refused("10kb", quoted(GARBAGE)),
                  either("gmt+14", "\"Etc/GMT-14\""),
                  either("offset", "\"+05:30\""));
          case DST ->
              List.of(
                  refused("string", "\"shift\""),
                  refused("array", "[]"),
                  refused("gap-unknown", "{\"gap\":\"bogus\"}"),
                  refused("gap-number", "{\"gap\":1}"),
                  refused("unknown-field", "{\"bogus\":1}"),
                  refused("overlap-nul", "{\"overlap\":\"first" + NUL + "\"}"));
        };
    if (kind == Kind.ROLE || kind == Kind.EXPIRY || kind == Kind.RATE) {
      return specific; // their base kind's list holds the wrong types already
    }
    List<Value> out = new java.util.ArrayList<>(specific);
    for (Value wrong : WRONG_TYPES) {
      // a payload is any JSON value: only the unparseable or unstorable ones are wrong for it
      // (and true is right for a flag, whose own list has it)
      if (kind == Kind.FLAG && wrong.label().equals("true")) {
        continue;
      }
      boolean anyJson = kind == Kind.PAYLOAD && wrong.label().equals("true");
      out.add(anyJson ? either(wrong.label(), wrong.json()) : wrong);
    }
    return out;
  }

  private static List<Value> concat(List<Value> a, List<Value> b) {
    List<Value> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** A key's namespaces: a list of names, or ["*"] alone. */
  private static List<Value> namespaces() {
    return List.of(
        refused("string", "\"x\""),
        refused("numbers", "[1]"),
        refused("nulls", "[null]"),
        refused("empty-entry", "[\"\"]"),
        refused("nul", "[" + quoted("a" + NUL) + "]"),
        refused("surrogate", "[" + quoted("\\udfff") + "]"),
        refused("10kb", "[" + quoted(GARBAGE) + "]"),
        refused("1000-entries", "[" + "\"t\",".repeat(999) + "\"t\"]"),
        refused("101-entries", "[" + "\"t\",".repeat(100) + "\"t\"]"),
        refused("nested", "[[]]"),
        refused("object", "{}"),
        refused("empty", "[]"),
        refused("star-and-more", "[\"*\",\"a\"]"),
        refused("star-star", "[\"**\"]"),
        refused("path", "[\"../etc\"]"),
        refused("slash", "[\"a/b\"]"),
        refused("space", "[\"a b\"]"),
        refused("unicode", "[\"caf\\u00e9\"]"),
        refused("leading-dash", "[\"-a\"]"),
        refused("leading-dot", "[\".a\"]"),
        refused("101-chars", "[\"" + "n".repeat(101) + "\"]"),
        refused("trailing-newline", "[\"a\\n\"]"),
        refused("bidi", "[\"a\\u202Eb\"]"),
        either("100-chars", "[\"" + "n".repeat(100) + "\"]"),
        either("duplicates", "[\"dup\",\"dup\"]"),
        either("star", "[\"*\"]"),
        either("punctuation", "[\"a.b:c_d-e\"]"));
  }

  /** The name of a namespace to create (a name used once: the corpus sends each value once). */
  private static List<Value> namespaceNames() {
    return List.of(
        refused("number", "123"),
        refused("object", "{}"),
        refused("array", "[\"a\"]"),
        refused("empty", "\"\""),
        refused("blank", "\"   \""),
        refused("nul", quoted("a" + NUL + "b")),
        refused("lone-high-surrogate", quoted("a\\ud800b")),
        refused("lone-low-surrogate", quoted("\\udc00")),
        refused("10kb", quoted(GARBAGE)),
        refused("101-chars", quoted("n".repeat(101))),
        refused("unicode", quoted("caf\\u00e9")),
        refused("emoji", quoted("\\ud83d\\ude00")),
        refused("bidi", quoted("a\\u202Eb")),
        refused("zero-width", quoted("a\\u200bb")),
        refused("path", quoted("../etc")),
        refused("slash", quoted("a/b")),
        refused("percent", quoted("a%2Fb")),
        refused("space", quoted("a b")),
        refused("star", quoted("*")),
        refused("leading-dash", quoted("-a")),
        refused("leading-dot", quoted(".a")),
        refused("trailing-newline", quoted("a\\n")),
        refused("escapes", quoted("\\\"\\\\/\\b\\f\\n\\r\\t")),
        // names that exist (409 namespace-exists naming the field): the deployment's default,
        // and a name this very list creates first
        refused("reserved-default", quoted("default")),
        either("once", quoted("hostile-twice")),
        refused("twice", quoted("hostile-twice")),
        either("100-chars", quoted("n".repeat(100))),
        either("upper-case-default", quoted("DEFAULT")),
        either("word-null", quoted("null")),
        either("word-admin", quoted("admin")),
        either("punctuation", quoted("a.b:c_d-e")),
        either("digits", quoted("0")));
  }

  private static List<Value> roles() {
    return List.of(
        refused("root", "\"root\""),
        refused("superadmin", "\"superadmin\""),
        refused("star", "\"*\""),
        refused("padded", "\" viewer\""),
        refused("list", "\"viewer,admin\""),
        either("capitalized", "\"Viewer\""));
  }

  private static List<Value> expiries() {
    return List.of(
        refused("past", "\"2001-01-01T00:00:00Z\""), either("far", "\"3999-12-31T23:59:59.999Z\""));
  }

  private static List<Value> rates() {
    return List.of(refused("over-max", "1000001"), either("max", "1000000"), either("one", "1"));
  }

  private static List<Value> counts() {
    return List.of(
        refused("string", "\"3\""),
        refused("fraction", "1.5"),
        refused("negative", "-1"),
        refused("2^63", "9223372036854775808"),
        refused("-2^63-1", "-9223372036854775809"),
        refused("2^63-1", "9223372036854775807"),
        refused("over-max", "1000000000001"),
        refused("huge", "1" + "0".repeat(400)),
        refused("array", "[3]"),
        either("zero", "0"),
        either("negative-zero", "-0"),
        either("2^31", "2147483648"),
        either("max", "1000000000000"),
        either("1e1", "1e1"),
        either("1.0", "1.0"));
  }

  /** A namespace's weight (1 to 1000). */
  private static List<Value> weights() {
    return List.of(
        refused("string", "\"3\""),
        refused("fraction", "1.5"),
        refused("zero", "0"),
        refused("negative", "-1"),
        refused("over-max", "1001"),
        refused("2^31", "2147483648"),
        refused("2^63", "9223372036854775808"),
        refused("huge", "1" + "0".repeat(400)),
        refused("1e400", "1e400"),
        refused("array", "[3]"),
        refused("object", "{}"),
        either("one", "1"),
        either("max", "1000"),
        either("1e1", "1e1"),
        either("1.0", "1.0"));
  }

  /** A quota's maxRunning (1 to 10 000). */
  private static List<Value> runningCaps() {
    return List.of(
        refused("string", "\"3\""),
        refused("fraction", "1.5"),
        refused("zero", "0"),
        refused("negative", "-1"),
        refused("over-max", "10001"),
        refused("2^31", "2147483648"),
        refused("2^63", "9223372036854775808"),
        refused("huge", "1" + "0".repeat(400)),
        refused("1e400", "1e400"),
        refused("array", "[3]"),
        refused("object", "{}"),
        either("one", "1"),
        either("max", "10000"),
        either("1e1", "1e1"),
        either("1.0", "1.0"));
  }

  /**
   * An egress grant's {@code allow}: the corpus's API has no {@code worker.http.allow}, so its
   * ceiling is the public internet and every private or named entry is outside it.
   */
  private static List<Value> egressAllows() {
    return List.of(
        refused("string", "\"10.0.0.0/8\""),
        refused("numbers", "[1]"),
        refused("nulls", "[null]"),
        refused("empty-entry", "[\"\"]"),
        refused("blank-entry", "[\"  \"]"),
        refused("nested", "[[]]"),
        refused("object", "{}"),
        refused("private-range", "[\"10.0.0.0/8\"]"),
        refused("metadata", "[\"169.254.169.254\"]"),
        refused("loopback", "[\"127.0.0.1\"]"),
        refused("everything-v4", "[\"0.0.0.0/0\"]"),
        refused("everything-v6", "[\"::/0\"]"),
        refused("nat64", "[\"64:ff9b:1::/48\"]"),
        refused("mapped-v4", "[\"::ffff:10.0.0.1\"]"),
        refused("host-name", "[\"internal.example\"]"),
        refused("comma-list", "[\"10.0.0.1,10.0.0.2\"]"),
        refused("bad-prefix", "[\"10.0.0.0/33\"]"),
        refused("nul", "[" + quoted("10.0.0.1" + NUL) + "]"),
        refused("surrogate", "[" + quoted("a\\ud800") + "]"),
        refused("254-chars", "[" + quoted("a".repeat(254)) + "]"),
        refused("10kb", "[" + quoted(GARBAGE) + "]"),
        refused("1000-entries", "[" + "\"10.0.0.1\",".repeat(999) + "\"10.0.0.1\"]"),
        either("empty", "[]"));
  }

  /** A boolean field. */
  private static List<Value> millis() {
    return List.of(
        refused("string", "\"3\""),
        refused("fraction", "1.5"),
        refused("negative", "-1"),
        refused("2^31", "2147483648"),
        refused("2^63", "9223372036854775808"),
        refused("huge", "1" + "0".repeat(400)),
        refused("array", "[3]"),
        either("zero", "0"),
        either("negative-zero", "-0"),
        either("1e1", "1e1"),
        either("1.0", "1.0"));
  }

  private static List<Value> anyJobIds(String seedJobId) {
    return List.of(
        refused("not-uuid", "\"not-a-uuid\""),
        refused("braced", "\"{" + seedJobId + "}\""),
        refused("nul", quoted(seedJobId + NUL)),
        refused("number", "1"),
        refused("empty", "\"\""),
        refused("10kb", quoted(GARBAGE)),
        either("nil-uuid", "\"00000000-0000-0000-0000-000000000000\""),
        either("random-uuid", "\"5f0c2b53-8a3e-4b8e-9c1f-3f1d2e4c5b6a\""),
        either("upper-case-seed", quoted(seedJobId.toUpperCase(java.util.Locale.ROOT))));
  }

  private static List<Value> types() {
    return List.of(
        refused("string", "\"x\""),
        refused("empty", "[]"),
        refused("numbers", "[1]"),
        refused("nulls", "[null]"),
        refused("empty-entry", "[\"\"]"),
        refused("blank-entry", "[\"  \"]"),
        refused("nul", "[" + quoted("a" + NUL) + "]"),
        refused("10kb", "[" + quoted(GARBAGE) + "]"),
        refused("101-entries", "[" + "\"t\",".repeat(100) + "\"u\"]"),
        refused("duplicates", "[\"dup\",\"dup\"]"),
        refused("nested", "[[]]"),
        refused("object", "{}"),
        either("two", "[\"a\",\"b\"]"),
        either("bidi", "[\"a\\u202Eb\"]"));
  }

  private static List<Value> progress() {
    return List.of(
        refused("string", "\"50\""),
        refused("number", "50"),
        refused("array", "[50]"),
        refused("empty", "{}"),
        refused("percent-over", "{\"percent\":101}"),
        refused("percent-negative", "{\"percent\":-1}"),
        refused("percent-string", "{\"percent\":\"5\"}"),
        refused("done-alone", "{\"done\":1}"),
        refused("done-over-total", "{\"done\":3,\"total\":2}"),
        refused("total-zero", "{\"done\":0,\"total\":0}"),
        refused("done-fraction", "{\"done\":0.5,\"total\":2}"),
        refused("unknown", "{\"eta\":5}"),
        either("percent", "{\"percent\":50}"),
        either("fraction", "{\"percent\":12.5}"),
        either("counts", "{\"done\":1,\"total\":3}"));
  }

  private static List<Value> lines() {
    return List.of(
        refused("string", "\"x\""),
        refused("numbers", "[1]"),
        refused("nulls", "[null]"),
        refused("nested", "[[]]"),
        refused("object", "{}"),
        refused("nul", "[" + quoted("a" + NUL) + "]"),
        refused("surrogate", "[" + quoted("\\udfff") + "]"),
        refused("101-lines", "[" + "\"l\",".repeat(100) + "\"m\"]"),
        either("empty", "[]"),
        either("empty-line", "[\"\"]"),
        either("10kb", "[" + quoted(GARBAGE) + "]"),
        either("bidi", "[\"a\\u202Eb\"]"));
  }

  private static List<Value> flags() {
    return List.of(
        refused("string", "\"true\""),
        refused("number", "1"),
        refused("zero", "0"),
        refused("array", "[true]"),
        refused("object", "{}"),
        either("true", "true"),
        either("false", "false"));
  }

  /** A whole quota, as the value of a namespace's {@code quota}. */
  private static List<Value> quotas() {
    return List.of(
        refused("string", "\"unlimited\""),
        refused("array", "[]"),
        refused("number", "5"),
        refused("unknown-field", "{\"bogus\":1}"),
        refused("nul-field", "{\"a" + NUL + "\":1}"),
        refused("burst-alone", "{\"burst\":5}"),
        refused("rate-zero", "{\"submitsPerSecond\":0}"),
        refused("rate-negative", "{\"submitsPerSecond\":-5}"),
        refused("rate-huge", "{\"submitsPerSecond\":1e400}"),
        refused("rate-string", "{\"submitsPerSecond\":\"5\"}"),
        refused("pending-2^63", "{\"maxPending\":9223372036854775808}"),
        refused("payload-zero", "{\"maxPayloadBytes\":0}"),
        refused("running-zero", "{\"maxRunning\":0}"),
        refused("timeout-zero", "{\"maxTimeout\":\"PT0S\"}"),
        refused("timeout-number", "{\"maxTimeout\":60}"),
        either("empty", "{}"),
        either(
            "all-null",
            "{\"submitsPerSecond\":null,\"burst\":null,\"maxPending\":null,"
                + "\"maxPayloadBytes\":null}"),
        either("rate-only", "{\"submitsPerSecond\":5}"));
  }
}
