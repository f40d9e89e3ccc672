package io.punctual.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.hostile.Probe.Expect;
import io.punctual.api.hostile.RawHttp.Response;
import io.punctual.api.problem.Problem;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hostile corpus: over a thousand requests aimed at every route of the API (every body field
 * with every hostile value of its kind, every header, path id and query parameter spoiled in turn)
 * and at the HTTP framing itself, over a raw socket. Every answer must be below 500; every refusal
 * RFC 9457 problem+json with type, title and status, naming the field or parameter at fault; no
 * answer may echo a NUL or the 10 KB garbage; and afterwards the database must hold exactly what
 * the accepted requests created, nothing half-written by the refused ones. Requests that would cost
 * more than their refusal ({@link CostProbes}: gzip bombs, payload searches without a range) must
 * get the one status each names, and reads over a key's rate a 429 (on a second API with a low
 * rate).
 */
class HostileCorpusIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  /** The API with keys switched off: changes need this server's Host and a JSON content type. */
  static final ApiFixture KEYS_OFF = ApiFixture.withoutKeys(ApiFixture.testSettings());

  @RegisterExtension static final DropwizardAppExtension<?> KEYS_OFF_APP = KEYS_OFF.app;

  /** Routes that change something times the keys-off spoils of each (9 Hosts, 7 types). */
  static final int MINIMUM_KEYS_OFF_PROBES = 20 * 16;

  /**
   * A second API whose keys may read once a second (bursts of 2), for the reads over a key's rate:
   * the main one runs without the limit, as its test clock stands still and the corpus reads
   * thousands of times with one key.
   */
  static final ApiFixture LIMITED = ApiFixture.start(limitedReads());

  @RegisterExtension static final DropwizardAppExtension<?> LIMITED_APP = LIMITED.app;

  private static ApiSettings limitedReads() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.readsPerSecondPerKey = 1;
    return settings;
  }

  /** The corpus may grow; it must not shrink unnoticed. */
  static final int MINIMUM_PROBES = 5_500;

  static final int MINIMUM_RAW_PROBES = 65;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Statuses that mean "this field or parameter is wrong": they must name it. */
  private static final Set<Integer> FIELD_STATUSES = Set.of(400, 413, 422);

  /**
   * Probes that still fail, for a defect too large to fix beside the corpus: each must go on
   * failing (so the entry is removed with the fix), and nothing else may fail.
   */
  static final Map<String, String> KNOWN_DEFECTS = Map.of();

  private final Ledger ledger = new Ledger();

  @Test
  void noHostileRequestGetsA5xxAnUnnamedRefusalOrLeavesAnythingHalfWritten() {
    Ledger.Snapshot before = Ledger.snapshot(FIXTURE.stores.database().jdbi());
    Map<Route, String> seeds = new HashMap<>();
    Map<Route.IdKind, Integer> seedCount = new EnumMap<>(Route.IdKind.class);
    String seedJob = seed(FIXTURE, ledger, Route.IdKind.JOB, 0);
    for (Route route : Routes.ALL) {
      if (route.idKind() != Route.IdKind.NONE) {
        int n = seedCount.merge(route.idKind(), 1, Integer::sum);
        seeds.put(route, seed(FIXTURE, ledger, route.idKind(), n));
      }
    }
    List<Probe> probes =
        new ArrayList<>(new Corpus(ApiFixture.ADMIN_KEY, seeds::get, seedJob).build());
    probes.addAll(RawProbes.all(ApiFixture.ADMIN_KEY));
    probes.addAll(CostProbes.all(ApiFixture.ADMIN_KEY));

    RawHttp http = new RawHttp(FIXTURE.baseUri());
    List<String> failures = new ArrayList<>();
    Map<String, Integer> perRoute = new HashMap<>();
    int knownFailing = 0;
    for (Probe probe : probes) {
      perRoute.merge(probe.route().name(), 1, Integer::sum);
      List<Response> responses = http.exchange(probe.bytes());
      List<String> failed = check(probe, responses, ledger);
      if (KNOWN_DEFECTS.containsKey(probe.name())) {
        assertThat(failed).as("known defect, fixed? " + probe.name()).isNotEmpty();
        knownFailing++;
      } else {
        failures.addAll(failed);
      }
    }

    assertThat(failures).as("%d of %d probes failed", failures.size(), probes.size()).isEmpty();
    assertThat(knownFailing).as("known defects probed").isEqualTo(KNOWN_DEFECTS.size());
    assertThat(probes.size()).as("probes sent").isGreaterThanOrEqualTo(MINIMUM_PROBES);
    assertThat(probes.stream().filter(p -> p.name().startsWith("RAW ")).count())
        .as("raw-socket probes")
        .isGreaterThanOrEqualTo(MINIMUM_RAW_PROBES);
    for (Route route : Routes.ALL) {
      assertThat(perRoute.getOrDefault(route.name(), 0))
          .as(route.name())
          .isGreaterThanOrEqualTo(40);
    }
    Ledger.Snapshot after = Ledger.snapshot(FIXTURE.stores.database().jdbi());
    assertThat(ledger.differences(before, after)).isEmpty();
    assertThat(ledger.accepted()).as("some hostile-but-valid requests are accepted").isPositive();
    assertThat(unreadableJobs()).as("accepted jobs the API cannot read back").isEmpty();
  }

  @Test
  void withKeysOffEveryChangeUnderAForeignHostOrNotInJsonIsRefusedNamingWhy() {
    Ledger keysOff = new Ledger();
    Ledger probed = new Ledger();
    Ledger.Snapshot before = Ledger.snapshot(KEYS_OFF.stores.database().jdbi());
    Map<Route, String> seeds = new HashMap<>();
    Map<Route.IdKind, Integer> seedCount = new EnumMap<>(Route.IdKind.class);
    String seedJob = seed(KEYS_OFF, keysOff, Route.IdKind.JOB, 0);
    for (Route route : Routes.ALL) {
      if (route.idKind() != Route.IdKind.NONE) {
        int n = seedCount.merge(route.idKind(), 1, Integer::sum);
        seeds.put(route, seed(KEYS_OFF, keysOff, route.idKind(), n));
      }
    }
    Ledger.Snapshot seeded = Ledger.snapshot(KEYS_OFF.stores.database().jdbi());
    assertThat(keysOff.differences(before, seeded))
        .as("the seeds, sent as a client would, are taken")
        .isEmpty();
    List<Probe> probes =
        new Corpus(ApiFixture.ADMIN_KEY, seeds::get, seedJob).keysOff(KEYS_OFF.baseUri().getPort());

    RawHttp http = new RawHttp(KEYS_OFF.baseUri());
    List<String> failures = new ArrayList<>();
    for (Probe probe : probes) {
      List<Response> responses = http.exchange(probe.bytes());
      failures.addAll(check(probe, responses, probed));
      int expected = probe.culprit().equals("Host") ? 403 : 415;
      if (responses.size() != 1
          || responses.get(0).status() != expected
          || !names(parse(responses.get(0).text()), probe.culprit())) {
        failures.add(
            probe
                + "\n   => "
                + (responses.isEmpty()
                    ? "no answer"
                    : responses.get(0).status() + " " + abbreviated(responses.get(0).text()))
                + "\n   : not a "
                + expected
                + " naming "
                + probe.culprit());
      }
    }

    assertThat(failures).as("%d of %d probes failed", failures.size(), probes.size()).isEmpty();
    assertThat(probes.size()).as("probes sent").isGreaterThanOrEqualTo(MINIMUM_KEYS_OFF_PROBES);
    Ledger.Snapshot after = Ledger.snapshot(KEYS_OFF.stores.database().jdbi());
    assertThat(probed.differences(seeded, after)).as("nothing changed").isEmpty();
    assertThat(probed.accepted()).as("nothing accepted").isZero();
  }

  @Test
  void readsOverTheKeysRateAre429ProblemsWithRetryAfterNamingTheKey() {
    RawHttp http = new RawHttp(LIMITED.baseUri());
    List<String> failures = new ArrayList<>();
    int limited = 0;
    for (Route route : Routes.ALL) {
      if (!route.method().equals("GET") || route.idKind() != Route.IdKind.NONE) {
        continue;
      }
      LIMITED.clock.advance(Duration.ofSeconds(2)); // a full bucket: two reads, then none
      for (int i = 0; i < 3; i++) {
        Probe probe =
            new Probe(
                "READ " + route.name() + " #" + i,
                route,
                new Request("GET", route.template(), ApiFixture.ADMIN_KEY).bytes(),
                null,
                i < 2 ? Expect.EITHER : Expect.REFUSED,
                i < 2 ? 0 : 429);
        List<Response> responses = http.exchange(probe.bytes());
        failures.addAll(check(probe, responses, new Ledger()));
        if (i < 2 || responses.isEmpty() || responses.get(0).status() != 429) {
          continue;
        }
        limited++;
        Response refused = responses.get(0);
        JsonNode problem = parse(refused.text());
        if (!refused.header("retry-after").equals("1")
            || !refused.header("ratelimit-policy").equals("\"reads\";q=2;w=2")
            || !refused.header("ratelimit").startsWith("\"reads\";r=0;t=")
            || problem == null
            || !problem.path("type").asText().endsWith("/read-rate-exceeded")
            || !names(problem, "Authorization")) {
          failures.add(probe + "\n   => " + refused.headers() + " " + refused.text());
        }
      }
    }

    assertThat(failures).isEmpty();
    assertThat(limited).as("GET routes refused over the rate").isGreaterThanOrEqualTo(10);
  }

  /** Each accepted job that {@code GET /jobs/{id}} does not answer with itself. */
  private List<String> unreadableJobs() {
    List<String> out = new ArrayList<>();
    ledger
        .jobNamespaces()
        .forEach(
            (id, namespace) -> {
              HttpSupport.Reply reply =
                  FIXTURE.http().namespace(namespace).get("/api/v1/jobs/" + id);
              if (reply.status() != 200 || !id.equals(reply.json().path("id").asText())) {
                out.add(id + " in " + namespace + ": " + reply.status() + " " + reply.raw().body());
              }
            });
    return out;
  }

  /** Every way the answers to {@code probe} break the rules (empty when they keep them). */
  private static List<String> check(Probe probe, List<Response> responses, Ledger ledger) {
    List<String> out = new ArrayList<>();
    if (responses.isEmpty() || responses.get(0).timedOut()) {
      if (probe.expect() != Expect.EITHER_OR_SILENCE) {
        out.add(probe + ": no answer" + (responses.isEmpty() ? "" : " (timed out)"));
      }
      return out;
    }
    for (Response response : responses) {
      if (response.timedOut()) {
        continue;
      }
      String where =
          probe
              + "\n   => "
              + response.status()
              + " "
              + response.header("content-type")
              + " "
              + abbreviated(response.text());
      JsonNode json = parse(response.text());
      ledger.record(probe.route(), response.status(), json);
      int status = response.status();
      if (status >= 500 && !(status == 505 && probe.name().startsWith("RAW http/"))) {
        // 505 HTTP Version Not Supported is what RFC 9110 prescribes for HTTP/0.9 or 9.9
        out.add(where + "\n   : a 5xx");
      }
      if (status < 400 && probe.expect() == Expect.REFUSED && responses.size() == 1) {
        out.add(where + "\n   : accepted, must be refused");
      }
      if (probe.status() != 0 && status != probe.status()) {
        out.add(where + "\n   : must be a " + probe.status());
      }
      String text = response.text();
      if (text.indexOf('\u0000') >= 0 || (json != null && holdsNul(json))) {
        out.add(where + "\n   : echoes a NUL");
      }
      if (text.contains(Hostile.GARBAGE_ECHO)) {
        out.add(where + "\n   : echoes the 10 KB garbage");
      }
      boolean head = new String(probe.bytes(), 0, 5, StandardCharsets.ISO_8859_1).equals("HEAD ");
      if (status >= 400 && head) {
        // an answer to HEAD has no body: only its headers say what it would have been
        if (!response.header("content-type").startsWith(Problem.MEDIA_TYPE)) {
          out.add(where + "\n   : a refusal that is not problem+json");
        }
      } else if (status >= 400) {
        out.addAll(checkProblem(probe, response, json, where));
      }
    }
    return out;
  }

  private static List<String> checkProblem(
      Probe probe, Response response, JsonNode json, String where) {
    List<String> out = new ArrayList<>();
    if (!response.header("content-type").startsWith(Problem.MEDIA_TYPE)) {
      out.add(where + "\n   : a refusal that is not problem+json");
      return out;
    }
    if (json == null
        || !json.path("type").asText().startsWith(Problem.TYPE_PREFIX)
        || json.path("title").asText().isBlank()
        || json.path("status").asInt() != response.status()) {
      out.add(where + "\n   : a problem without type, title or the status");
      return out;
    }
    if (probe.culprit() != null
        && FIELD_STATUSES.contains(response.status())
        && !names(json, probe.culprit())) {
      out.add(where + "\n   : does not name " + probe.culprit());
    }
    return out;
  }

  /** Whether {@code json} holds a NUL in any string or field name (a JSON escape included). */
  static boolean holdsNul(JsonNode json) {
    if (json.isTextual()) {
      return json.textValue().indexOf('\u0000') >= 0;
    }
    for (Map.Entry<String, JsonNode> field : json.properties()) {
      if (field.getKey().indexOf('\u0000') >= 0 || holdsNul(field.getValue())) {
        return true;
      }
    }
    if (json.isArray()) {
      for (JsonNode item : json) {
        if (holdsNul(item)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether the problem names {@code culprit} or a field within it, as a path ({@code
   * jobs[0].payload}) or, for JSON the parser stopped at, as a JSON pointer ({@code
   * /jobs/0/payload}).
   */
  static boolean names(JsonNode problem, String culprit) {
    String pointer = "/" + culprit.replaceAll("\\[(\\d+)\\]", ".$1").replace('.', '/');
    List<String> fields = new ArrayList<>();
    fields.add(problem.path("field").asText(""));
    problem.path("errors").forEach(e -> fields.add(e.path("field").asText("")));
    for (String field : fields) {
      if (field.equals(culprit)
          || field.startsWith(culprit + ".")
          || field.startsWith(culprit + "[")
          || field.equals(pointer)
          || field.startsWith(pointer + "/")) {
        return true;
      }
    }
    return false;
  }

  private static String seed(ApiFixture fixture, Ledger ledger, Route.IdKind kind, int n) {
    HttpSupport http = fixture.http();
    Route creator =
        switch (kind) {
          case JOB -> Routes.ALL.get(0);
          case WORKFLOW -> byName("POST /api/v1/workflows");
          case SCHEDULE -> byName("POST /api/v1/schedules");
          case KEY -> byName("POST /api/v1/keys");
          case BULK_ACTION -> byName("POST /api/v1/jobs/bulk");
          case ALERT_RULE -> byName("POST /api/v1/alert-rules");
          case NAMESPACE -> byName("POST /api/v1/namespaces");
          case REMOTE_WORKER -> byName("POST /api/v1/workers");
          case NONE -> throw new IllegalArgumentException();
        };
    String body =
        switch (kind) {
          case JOB -> "{\"type\":\"seed\",\"delay\":\"PT1H\"}";
          case WORKFLOW -> "{\"jobs\":[{\"ref\":\"a\",\"type\":\"seed\",\"delay\":\"PT1H\"}]}";
          case SCHEDULE -> "{\"name\":\"seed-" + n + "\",\"every\":\"PT1H\",\"type\":\"seed\"}";
          case KEY -> "{\"name\":\"seed-" + n + "\",\"role\":\"viewer\",\"namespaces\":[\"*\"]}";
          // a real action (not a dry run) on a filter that matches no job: it acts on nothing
          case BULK_ACTION -> "{\"action\":\"cancel\",\"filter\":{\"type\":\"no-such-type\"}}";
          case ALERT_RULE ->
              "{\"name\":\"seed-"
                  + n
                  + "\",\"when\":{\"event\":\"job_failed\"},"
                  + "\"notify\":{\"webhook\":\"https://example.com/hook\"}}";
          case NAMESPACE -> "{\"name\":\"seed-ns-" + n + "\"}";
          case REMOTE_WORKER -> "{\"types\":[\"hostile-remote\"],\"concurrency\":4}";
          case NONE -> throw new IllegalArgumentException();
        };
    HttpSupport.Reply reply = http.post(creator.template(), body);
    assertThat(reply.status())
        .as(reply.raw().body())
        .isEqualTo(kind == Route.IdKind.BULK_ACTION ? 202 : 201);
    ledger.record(creator, reply.status(), reply.json());
    return reply.json().get(kind == Route.IdKind.NAMESPACE ? "name" : "id").asText();
  }

  private static Route byName(String name) {
    return Routes.ALL.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
  }

  private static JsonNode parse(String text) {
    try {
      return text.isBlank() ? null : JSON.readTree(text);
    } catch (IOException e) {
      return null;
    }
  }

  private static String abbreviated(String text) {
    String flat = text.replace("\n", " ");
    return flat.length() > 400 ? flat.substring(0, 400) + "..." : flat;
  }
}
