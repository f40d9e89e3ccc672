package io.punctual.deploy.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.deploy.command.DevExposition;
import io.punctual.deploy.files.DeployFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/grafana/punctual.json against a live scrape: every PromQL expression of the dashboard (its
 * panels' queries and its variables') names only series that the {@code /prometheus} endpoint of a
 * running {@code dev} role (API, worker, planner and reaper on embedded PostgreSQL and Redis, one
 * job run through it) really produces, and the dashboard covers what operators need.
 */
class GrafanaDashboardTest {
  @TempDir static Path dataDir;

  static Set<String> exposed;
  static JsonNode dashboard;

  @BeforeAll
  static void scrapeAndRead() throws Exception {
    exposed = sampleNames(DevExposition.scrape(dataDir));
    dashboard = new ObjectMapper().readTree(dashboardFile().toFile());
  }

  static Path dashboardFile() {
    return DeployFiles.deployDir().resolve("grafana/punctual.json");
  }

  @Test
  void everyExpressionNamesOnlySeriesTheExpositionProduces() {
    Map<String, String> expressions = expressions();
    assertThat(expressions).hasSizeGreaterThan(20);
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : expressions.entrySet()) {
      Set<String> names = metricNames(e.getValue(), problems, e.getKey());
      if (names.isEmpty()) {
        problems.add(e.getKey() + ": names no metric: " + e.getValue());
      }
      for (String name : names) {
        if (!exposed.contains(name)) {
          problems.add(e.getKey() + ": " + name + " is not in the exposition");
        }
      }
    }
    assertThat(problems).as("exposed: %s", exposed).isEmpty();
  }

  @Test
  void theDashboardCoversJobsQueuesLatencyRecoveryHttpJvmAndPools() {
    Set<String> used = new HashSet<>();
    for (Map.Entry<String, String> e : expressions().entrySet()) {
      used.addAll(metricNames(e.getValue(), new ArrayList<>(), e.getKey()));
    }
    assertThat(used)
        .contains(
            "punctual_jobs_submitted_total",
            "punctual_jobs_started_total",
            "punctual_jobs_ended_total",
            "punctual_queue_due_jobs",
            "punctual_queue_future_jobs",
            "punctual_job_start_lag_seconds_bucket",
            "punctual_job_handler_duration_seconds_bucket",
            "punctual_reaper_rescued_total",
            "punctual_reaper_requeued_total",
            "punctual_reaper_removedFromRedis_total",
            "io_dropwizard_jetty_MutableServletContextHandler_requests",
            "io_dropwizard_jetty_MutableServletContextHandler_5xx_responses_total",
            "jvm_memory_used_bytes",
            "jvm_gc_collection_seconds_sum",
            "dev_pool_ActiveConnections");
    String all = expressions().values().toString();
    for (String q : List.of("0.5", "0.95", "0.99")) {
      assertThat(all)
          .contains(
              "histogram_quantile(" + q + ", sum by (le) (rate(punctual_job_start_lag_seconds")
          .contains(
              "histogram_quantile(" + q + ", sum by (le) (rate(punctual_job_handler_duration");
    }
  }

  @Test
  void theParserFindsTheMetricsOfAnExpressionAndNothingElse() {
    List<String> problems = new ArrayList<>();
    assertThat(
            metricNames(
                "histogram_quantile(0.99, sum by (le, priority) (rate(a_bucket{namespace=~\"$ns\"}"
                    + "[$__rate_interval]))) / on (x) group_left max(b_total) + 2 * c",
                problems,
                "example"))
        .containsExactly("a_bucket", "b_total", "c");
    assertThat(metricNames("sum({__name__=~\"dev_pool_.*Connections\"})", problems, "example"))
        .contains("dev_pool_ActiveConnections", "dev_pool_IdleConnections");
    assertThat(metricNames("label_values(punctual_jobs_submitted_total, namespace)", problems, "v"))
        .containsExactly("punctual_jobs_submitted_total");
    assertThat(problems).isEmpty();
  }

  @Test
  void panelsHaveUniqueIdsAndUseTheDatasourceVariable() {
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt())).as("panel id %s", panel.path("id")).isTrue();
      if (!panel.path("type").asText().equals("row")) {
        assertThat(panel.at("/datasource/uid").asText()).isEqualTo("${datasource}");
        assertThat(panel.path("targets")).isNotEmpty();
      }
    }
    assertThat(dashboard.path("uid").asText()).isEqualTo("punctual-overview");
  }

  // ---------------------------------------------------------------------------------------------

  /** "panel title / refId" (or "variable name") to its PromQL. */
  static Map<String, String> expressions() {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.put(
            panel.path("title").asText() + " / " + target.path("refId").asText(),
            target.path("expr").asText());
      }
    }
    for (JsonNode variable : dashboard.at("/templating/list")) {
      if (variable.path("type").asText().equals("query")) {
        out.put("variable " + variable.path("name").asText(), variable.at("/query/query").asText());
      }
    }
    return out;
  }

  /** The sample names of a Prometheus text exposition (what PromQL selects). */
  static Set<String> sampleNames(String text) {
    Set<String> names = new TreeSet<>();
    for (String line : text.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  private static final Pattern NAME_MATCHER = Pattern.compile("__name__\\s*(=~|=)\\s*\"([^\"]*)\"");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*\\w+\\s*\\)");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*+)(?!\\s*\\()");
  private static final Set<String> KEYWORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "bool",
          "and",
          "or",
          "unless",
          "offset",
          "inf",
          "nan");

  /**
   * The metric names a PromQL expression selects: bare names, {@code {__name__="..."}} and, for
   * {@code {__name__=~"re"}}, every exposed name the regex matches (none is a problem).
   */
  static Set<String> metricNames(String expr, List<String> problems, String where) {
    Set<String> names = new TreeSet<>();
    Matcher m = NAME_MATCHER.matcher(expr);
    while (m.find()) {
      if (m.group(1).equals("=")) {
        names.add(m.group(2));
      } else {
        Pattern re = Pattern.compile(m.group(2));
        List<String> matched = exposed.stream().filter(n -> re.matcher(n).matches()).toList();
        if (matched.isEmpty()) {
          problems.add(where + ": __name__=~\"" + m.group(2) + "\" matches no exposed series");
        }
        names.addAll(matched);
      }
    }
    String rest = expr;
    Matcher lv = LABEL_VALUES.matcher(rest);
    if (lv.find()) {
      names.add(lv.group(1));
      return names;
    }
    rest =
        rest.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"") // strings
            .replaceAll("\\{[^}]*}", " ") // label matchers
            .replaceAll("\\[[^]]*]", " ") // ranges
            .replaceAll("\\$\\{[^}]*}|\\$\\w+", " "); // Grafana variables
    rest = GROUPING.matcher(rest).replaceAll(" ");
    Matcher id = IDENTIFIER.matcher(rest);
    while (id.find()) {
      String token = id.group(1);
      if (!KEYWORDS.contains(token)) {
        names.add(token);
      }
    }
    return names;
  }
}
