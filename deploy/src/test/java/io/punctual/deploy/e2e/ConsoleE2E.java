package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The web console ({@code /ui}) in headless Chromium against the dev distribution (API, a worker
 * with the built-in handlers, planner and reaper). Every test leaves a screenshot in
 * target/screenshots. The tests of endpoints that land with the jobs-endpoints work (retry, bulk,
 * payload search) are in {@link ConsolePendingEndpointsE2E}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsoleE2E {
  private ConsoleStack stack;
  private HeadlessChromium browser;
  private String testName;

  @BeforeAll
  void start(@TempDir Path tmp) {
    stack = ConsoleStack.start(tmp);
  }

  @BeforeEach
  void openBrowser(TestInfo test) {
    testName = test.getTestMethod().orElseThrow().getName();
    browser = new HeadlessChromium();
  }

  @AfterEach
  void closeBrowser() {
    if (browser != null) {
      try {
        if (browser.driver.getCurrentUrl().startsWith("http")) {
          browser.screenshot("ConsoleE2E-" + testName);
        }
      } finally {
        browser.close();
      }
    }
  }

  @AfterAll
  void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void theConsoleIsServedFromTheJarWithAStrictPolicy() {
    ConsoleStack.Reply page = stack.send("GET", "/ui/", null, null, Map.of());
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.raw().headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    String csp = page.raw().headers().firstValue("Content-Security-Policy").orElse("");
    assertThat(csp).contains("script-src 'self'", "frame-ancestors 'none'", "default-src 'none'");
    assertThat(csp).doesNotContain("unsafe-inline", "unsafe-eval");
    assertThat(page.raw().headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    // No script is inline and nothing comes from another origin.
    assertThat(page.raw().body()).doesNotContain("http://", "https://").contains("src=\"app.js\"");
    ConsoleStack.Reply script = stack.send("GET", "/ui/app.js", null, null, Map.of());
    assertThat(script.status()).isEqualTo(200);
    assertThat(script.raw().headers().firstValue("Content-Type").orElse("")).contains("javascript");
  }

  @Test
  void theOverviewShowsQueueDepthAndLiveWorkers() {
    stack.submit("{\"type\":\"noop\",\"priority\":\"low\",\"delay\":\"PT30S\"}");
    browser.signIn(stack.base, stack.adminKey);
    assertThat(browser.find("h1").getText()).isEqualTo("Overview");
    browser.until(
        d -> d.findElements(By.cssSelector("#queue-depth tr[data-priority]")).size() == 4);
    WebElement low = browser.find("#queue-depth tr[data-priority=low] td.future");
    assertThat(Integer.parseInt(low.getText())).isGreaterThanOrEqualTo(1);
    browser.until(
        d -> Integer.parseInt(d.findElement(By.id("alive-workers")).getText()) >= 1 ? true : null);
    assertThat(browser.find("#whoami").getText()).contains("admin");
  }

  @Test
  void aJobIsFoundByIdAndCancelledFromItsPage() {
    String id = stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\",\"payload\":{\"order\":7}}");
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/jobs");
    browser.find("#job-search").sendKeys(id);
    browser.find("#job-search-go").click();
    assertThat(browser.untilText("#job-id", id).getText()).isEqualTo(id);
    assertThat(browser.find("#payload").getText()).contains("\"order\": 7");
    browser.find("#job-cancel").click();
    browser.find("#job-cancel-confirm").click();
    browser.find("#job-status[data-status=CANCELLED]");
    assertThat(stack.status(id)).isEqualTo("CANCELLED");
    assertThat(browser.find("#job-retry").isEnabled()).isTrue();
  }

  @Test
  void aRunningJobsPageShowsItsProgressAndLogLinesAsTheyArrive() {
    // Signed in before the job starts: on a busy machine a sign-in alone took longer than the job.
    browser.signIn(stack.base, stack.adminKey);
    // The built-in sleep handler in 8 steps of 2 s: progress and a log line after each. (With
    // steps of 1.125 s the test once timed out waiting for the page on a loaded machine; the job
    // may have ended before the page showed it running.)
    String id = stack.submit("{\"type\":\"sleep\",\"payload\":{\"ms\":16000,\"steps\":8}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.status(id), "RUNNING"::equals);
    browser.open(stack.base + "/ui/#/jobs/" + id);
    browser.find("#job-status[data-status=RUNNING]");
    // The page's refresh, asked for every 100 ms (as a tab shown again asks for it), overlaps the
    // live reads: each line must still be shown once.
    browser.script(
        "window.__refreshes = setInterval("
            + "() => document.dispatchEvent(new Event('visibilitychange')), 100);");
    // Seen while it runs, without reloading the page: the bar moves and lines are added.
    browser.until(d -> d.findElements(By.cssSelector("#job-log .log-line")).size() >= 2);
    double early = percentShown();
    assertThat(early).isBetween(1.0, 99.0);
    assertThat(browser.find("#job-log .log-line[data-seq='1']").getText())
        .contains("step 1 of 8 done");
    browser.until(d -> percentShown() > early);
    browser.screenshot("ConsoleE2E-job-progress");
    // From the fourth line on, the tab counts as hidden, so its 5-second refresh stops: the live
    // reads alone must bring the last lines and the full bar, although a handler's last reports
    // are written up to worker.outputFlushInterval after its job is final.
    browser.find("#job-log .log-line[data-seq='4']");
    browser.script(
        "clearInterval(window.__refreshes);"
            + " Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });");
    browser.find("#job-log .log-line[data-seq='8']");
    assertThat(
            browser.all("#job-log .log-line").stream()
                .map(e -> e.getAttribute("data-seq"))
                .toList())
        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8");
    browser.until(d -> percentShown() == 100.0);
    assertThat(browser.find("#job-progress").getText()).contains("8 of 8");
    assertThat(browser.find("#job-log-attempt").getText()).containsIgnoringCase("attempt 1");
    assertThat(stack.get("/api/v1/jobs/" + id + "/logs").get("lines")).hasSize(8);
  }

  /** The percentage the job page's progress bar shows (read again if the page replaced it). */
  private double percentShown() {
    return browser.until(
        d ->
            d.findElements(By.cssSelector("#job-progress .progress")).stream()
                .findFirst()
                .map(e -> Double.valueOf(e.getAttribute("data-percent")))
                .orElse(null));
  }

  @Test
  void aJobsPageShowsEveryAttemptWithItsWorkerDurationAndError() {
    // The built-in fail handler fails attempts 1..times: two failures, then a success.
    String id =
        stack.submit(
            "{\"type\":\"fail\",\"payload\":{\"times\":2},\"maxAttempts\":3,\"tags\":[\"billing\"],"
                + "\"backoff\":{\"strategy\":\"fixed\",\"delay\":\"PT0.2S\"}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.status(id), "SUCCEEDED"::equals);
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/jobs/" + id);
    browser.until(d -> d.findElements(By.cssSelector("#attempts tr[data-attempt]")).size() == 3);
    String first = browser.find("#attempts tr[data-attempt='1']").getText();
    assertThat(first).contains("FAILED", "planned failure of attempt 1", "ms");
    assertThat(browser.find("#attempts tr[data-attempt='3']").getText()).contains("SUCCEEDED");
    String worker = stack.get("/api/v1/jobs/" + id).get("workerId").asText();
    assertThat(first).contains(worker);
    assertThat(browser.find("#job-cancel").isEnabled()).isFalse();
    browser.screenshot("ConsoleE2E-job-page");
  }

  @Test
  void aJobPageLinksItsParentAndListsItsChildren() {
    String parent = stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\"}");
    String first = stack.submit("{\"type\":\"noop\",\"parentId\":\"" + parent + "\"}");
    String second =
        stack.submit(
            "{\"type\":\"noop\",\"parentId\":\"" + parent + "\",\"runCondition\":\"always\"}");
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/jobs/" + parent);
    browser.untilText("#job-id", parent);
    browser.until(d -> d.findElements(By.cssSelector("#job-children .child")).size() == 2);
    assertThat(browser.find("#job-children .child[data-id='" + first + "']").getText())
        .contains(first, "BLOCKED");
    assertThat(browser.find("#job-children .child[data-id='" + second + "']").getText())
        .contains(second);
    assertThat(browser.find("#job-parent").getText()).isEqualTo("—");

    browser.find("#job-children .child[data-id='" + second + "'] a").click();
    browser.untilText("#job-id", second);
    assertThat(browser.find("#job-parent").getText()).contains(parent, "always");
    browser.find("#job-parent a").click();
    assertThat(browser.untilText("#job-id", parent).getText()).isEqualTo(parent);
  }

  @Test
  void theChildrenShownStayShownAcrossThePagesRefresh() {
    String parent = stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\"}");
    for (int i = 0; i < 25; i++) {
      stack.submit("{\"type\":\"noop\",\"parentId\":\"" + parent + "\"}");
    }
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/jobs/" + parent);
    browser.untilText("#job-id", parent);
    browser.until(d -> d.findElements(By.cssSelector("#job-children .child")).size() == 20);
    browser.find("#job-children-more").click();
    browser.until(d -> d.findElements(By.cssSelector("#job-children .child")).size() == 25);
    assertThat(browser.all("#job-children-more")).isEmpty();
    // The page refreshes every 5 s by rendering itself anew: wait for one, then count again.
    WebElement before = browser.find("#job-id");
    browser.until(ExpectedConditions.stalenessOf(before));
    browser.untilText("#job-id", parent);
    assertThat(browser.all("#job-children .child")).hasSize(25);
  }

  @Test
  void theApiReferenceShowsEveryRouteWithItsRoleFromTheOpenApiDocument() {
    JsonNode doc = stack.get("/api/v1/openapi.json");
    int operations = 0;
    for (JsonNode path : doc.get("paths")) {
      for (String method : new String[] {"get", "post", "put", "patch", "delete"}) {
        operations += path.has(method) ? 1 : 0;
      }
    }
    String viewer = stack.key("reference viewer", "viewer");
    browser.signIn(stack.base, viewer);
    browser.find("#nav-api").click();
    browser.untilText("#api-count", operations + " routes");
    assertThat(browser.all("#api-routes details.route")).hasSize(operations);

    WebElement children =
        browser.find("details.route[data-route='GET /api/v1/jobs/{id}/children']");
    assertThat(children.getAttribute("data-role")).isEqualTo("viewer");
    assertThat(children.getAttribute("data-tag")).isEqualTo("jobs");
    assertThat(
            browser
                .find("details.route[data-route='POST /api/v1/jobs/bulk']")
                .getAttribute("data-role"))
        .isEqualTo("operator");
    assertThat(
            browser.find("details.route[data-route='GET /api/v1/audit']").getAttribute("data-role"))
        .isEqualTo("admin");

    // Opened, a route shows its parameters and its responses with their schemas.
    WebElement list = browser.find("details.route[data-route='GET /api/v1/jobs']");
    list.findElement(By.tagName("summary")).click();
    browser.find("details.route[data-route='GET /api/v1/jobs'] tr[data-parameter=cursor]");
    assertThat(browser.find("details.route[data-route='GET /api/v1/jobs'] .route-role").getText())
        .isEqualTo("viewer");
    WebElement page =
        browser.find(
            "details.route[data-route='GET /api/v1/jobs'] tr[data-status='200'] details.ref-schema");
    page.findElement(By.tagName("summary")).click();
    browser.find(
        "details.route[data-route='GET /api/v1/jobs'] tr[data-status='200'] tr[data-property=nextCursor]");

    // A request body's schema lists its fields.
    WebElement submit = browser.find("details.route[data-route='POST /api/v1/jobs']");
    submit.findElement(By.tagName("summary")).click();
    browser
        .find(
            "details.route[data-route='POST /api/v1/jobs'] .ref-request details.ref-schema > summary")
        .click();
    browser.find(
        "details.route[data-route='POST /api/v1/jobs'] .ref-request tr[data-property=type]");

    // The filter narrows the list.
    browser.find("#api-search").sendKeys("/schedules");
    browser.until(
        d ->
            d.findElements(By.cssSelector("#api-routes details.route")).stream()
                .allMatch(r -> r.getAttribute("data-route").contains("/schedules")));
    assertThat(browser.all("#api-routes details.route")).isNotEmpty();
    assertThat(browser.find("nav a[data-page=api]").getAttribute("class")).contains("active");
  }

  @Test
  void aBrowsersCrossSitePostIsRefusedAndAudited() {
    String id = stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\"}");
    // A page of another site (127.0.0.1 is not localhost's site): the admin port's health check.
    // (The console's own pages could not even try: their policy allows no other origin.)
    browser.open(stack.adminBase + "/healthcheck");
    Object sent =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "fetch(arguments[0], {method: 'POST', mode: 'no-cors'})"
                + ".then(() => done('sent'), e => done(String(e)));",
            stack.base + "/api/v1/jobs/" + id + "/cancel");
    assertThat(sent).isEqualTo("sent");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode entries =
                  stack
                      .get("/api/v1/audit?action=POST%20/api/v1/jobs/%7Bid%7D/cancel&limit=50")
                      .get("items");
              assertThat(entries.toString())
                  .contains("\"target\":\"" + id + "\"")
                  .contains("\"status\":403")
                  .contains("cross-site-request");
            });
    assertThat(stack.status(id)).isEqualTo("PENDING");
  }

  @Test
  void aScheduleIsPausedFromItsPageAndShowsItsNextFireTimes() {
    JsonNode schedule =
        stack.post(
            "/api/v1/schedules",
            "{\"name\":\"console-nightly\",\"cron\":\"0 3 * * *\",\"timezone\":\"Europe/Paris\","
                + "\"type\":\"noop\"}");
    String id = schedule.get("id").asText();
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/schedules");
    browser.find("#schedules-table tr[data-name=console-nightly] a").click();
    browser.find("#schedule-status[data-status=ACTIVE]");
    // Ten fire times, each in the schedule's zone (03:00 local) and in UTC.
    browser.until(d -> d.findElements(By.cssSelector("#preview tbody tr")).size() == 10);
    assertThat(browser.find("#preview tbody tr td").getText()).contains("03:00:00");
    browser.find("#schedule-pause").click();
    browser.find("#schedule-status[data-status=PAUSED]");
    assertThat(stack.get("/api/v1/schedules/" + id).get("status").asText()).isEqualTo("PAUSED");
    browser.find("#schedule-resume");
  }

  @Test
  void aWorkflowIsDrawnAsAGraphOfItsSteps() {
    JsonNode workflow =
        stack.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"extract\",\"type\":\"noop\"},"
                + "{\"ref\":\"transform\",\"type\":\"noop\",\"dependsOn\":[{\"ref\":\"extract\"}]},"
                + "{\"ref\":\"load\",\"type\":\"noop\",\"dependsOn\":[{\"ref\":\"transform\"}]}]}");
    String id = workflow.get("id").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> stack.get("/api/v1/workflows/" + id).get("status").asText(), "SUCCEEDED"::equals);
    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/workflows/" + id);
    browser.until(d -> d.findElements(By.cssSelector("#workflow-graph a.step")).size() == 3);
    assertThat(browser.all("#workflow-graph a.step[data-status=SUCCEEDED]")).hasSize(3);
    assertThat(browser.all("#workflow-graph path.edge")).hasSize(2);
    // Layers: extract above transform above load.
    double extract = y(browser.find("#workflow-graph a.step[data-ref=extract] rect"));
    double transform = y(browser.find("#workflow-graph a.step[data-ref=transform] rect"));
    double load = y(browser.find("#workflow-graph a.step[data-ref=load] rect"));
    assertThat(extract).isLessThan(transform);
    assertThat(transform).isLessThan(load);
  }

  private static double y(WebElement rect) {
    return Double.parseDouble(rect.getAttribute("y"));
  }

  @Test
  void aViewerSeesButCannotAct() {
    String pending = stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\"}");
    stack.post(
        "/api/v1/schedules", "{\"name\":\"console-viewer\",\"every\":\"PT1H\",\"type\":\"noop\"}");
    String viewer = stack.key("console viewer", "viewer");
    browser.signIn(stack.base, viewer);
    assertThat(browser.find("#whoami").getText()).contains("viewer");
    assertThat(browser.all("nav a[data-page=admin]")).isEmpty();

    browser.open(stack.base + "/ui/#/jobs/" + pending);
    browser.untilText("#job-id", pending);
    assertThat(browser.find("#job-cancel").isEnabled()).isFalse();
    assertThat(browser.find("#job-retry").isEnabled()).isFalse();
    browser.open(stack.base + "/ui/#/jobs");
    browser.find("#jobs-table");
    assertThat(browser.find("#bulk-cancel").isEnabled()).isFalse();
    browser.open(stack.base + "/ui/#/schedules");
    browser.find("#schedules-table tr[data-name=console-viewer] a").click();
    assertThat(browser.find("#schedule-pause").isEnabled()).isFalse();

    // The buttons are only a courtesy: the server refuses the viewer's key whatever the page does.
    Object status =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "fetch('/api/v1/jobs/' + arguments[0] + '/cancel', {method: 'POST',"
                + " headers: {Authorization: 'Bearer ' + sessionStorage.getItem('punctual.key')}})"
                + ".then(r => done(r.status), e => done(String(e)));",
            pending);
    assertThat(status).isEqualTo(403L);
    assertThat(stack.status(pending)).isEqualTo("PENDING");
  }

  @Test
  void markupInStoredDataIsShownAsTextAndNeverRuns() {
    String script = "<script>window.__pwned = 'script'</script>";
    String img = "<img src=x onerror=\"window.__pwned = 'img'\">";
    String tag = "<img src=y onerror=window.__pwned='tag'>";
    // No worker has a handler for this type: the job fails at once, the type in its error.
    String id =
        stack.submit(
            "{\"type\":\"<img src=z onerror=window.__pwned='type'>\",\"maxAttempts\":1,"
                + "\"payload\":{\"a\":"
                + ConsoleStack.JSON.valueToTree(script)
                + ",\"b\":"
                + ConsoleStack.JSON.valueToTree(img)
                + "},\"tags\":["
                + ConsoleStack.JSON.valueToTree(tag)
                + "],\"idempotencyKey\":"
                + ConsoleStack.JSON.valueToTree(img)
                + "}");
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.status(id), "FAILED"::equals);

    browser.signIn(stack.base, stack.adminKey);
    browser.open(stack.base + "/ui/#/jobs");
    WebElement row = browser.find("#jobs-table tr[data-id='" + id + "']");
    assertThat(row.getText()).contains(tag).contains("no handler for type <img");
    browser.open(stack.base + "/ui/#/jobs/" + id);
    browser.untilText("#job-id", id);
    assertThat(browser.find("#payload").getText()).contains(script.replace("\"", "\\\""));
    assertThat(browser.find("#last-error").getText()).contains("onerror=window.__pwned='type'");
    browser.open(stack.base + "/ui/#/overview");
    browser.find("#queue-depth");
    assertThat(browser.script("return window.__pwned === undefined")).isEqualTo(true);
    assertThat(browser.all("img")).isEmpty();
  }
}
