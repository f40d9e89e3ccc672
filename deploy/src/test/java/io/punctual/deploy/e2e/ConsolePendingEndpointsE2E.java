package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

/**
 * The console's pages that use the job endpoints written on another branch: {@code POST
 * /jobs/{id}/retry}, {@code POST /jobs/bulk} (with {@code dryRun}) and {@code GET /jobs/bulk/{id}},
 * and {@code GET /jobs?payload=}: find a job by payload, retry a failed job and watch it succeed,
 * bulk-cancel after the dry-run count. Same setup as {@link ConsoleE2E}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsolePendingEndpointsE2E {
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
    browser.signIn(stack.base, stack.adminKey);
  }

  @AfterEach
  void closeBrowser() {
    if (browser != null) {
      try {
        browser.screenshot("ConsolePendingEndpointsE2E-" + testName);
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
  void aJobIsFoundByItsPayload() {
    String wanted = stack.submit("{\"type\":\"noop\",\"payload\":{\"order\":4242,\"x\":1}}");
    stack.submit("{\"type\":\"noop\",\"payload\":{\"order\":4243}}");
    browser.open(stack.base + "/ui/#/jobs");
    browser.find("#job-search").sendKeys("{\"order\":4242}");
    browser.find("#job-search-go").click();
    browser.until(
        d -> d.findElements(By.cssSelector("#jobs-table tr[data-id]")).size() == 1 ? true : null);
    assertThat(browser.find("#jobs-table tr[data-id]").getAttribute("data-id")).isEqualTo(wanted);
    // without the payload index the API searches a day at most: the console searched the last
    // day, and says so
    assertThat(browser.find("#payload-range").getText()).contains("one day");
  }

  @Test
  void aFailedJobIsRetriedAndSucceeds() {
    // The built-in fail handler fails attempts 1..times: attempt 1 fails, the retry's attempt 2
    // succeeds.
    String id = stack.submit("{\"type\":\"fail\",\"payload\":{\"times\":1},\"maxAttempts\":1}");
    await().atMost(Duration.ofSeconds(30)).until(() -> stack.status(id), "FAILED"::equals);
    browser.open(stack.base + "/ui/#/jobs/" + id);
    browser.find("#job-status[data-status=FAILED]");
    browser.find("#job-retry").click();
    // The page polls every 5 s: it shows the success without a reload.
    browser.find("#job-status[data-status=SUCCEEDED]");
    browser.until(d -> d.findElements(By.cssSelector("#attempts tr[data-attempt]")).size() == 2);
    assertThat(stack.status(id)).isEqualTo("SUCCEEDED");
  }

  @Test
  void bulkCancelShowsTheDryRunCountFirst() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(stack.submit("{\"type\":\"noop\",\"delay\":\"PT1H\",\"tags\":[\"console-bulk\"]}"));
    }
    browser.open(stack.base + "/ui/#/jobs?tag=console-bulk&status=PENDING");
    browser.until(d -> d.findElements(By.cssSelector("#jobs-table tr[data-id]")).size() == 3);
    browser.find("#bulk-cancel").click();
    assertThat(browser.untilText("#bulk-count", "3").getText()).isEqualTo("3");
    // Nothing is cancelled before the confirmation.
    assertThat(ids).allSatisfy(id -> assertThat(stack.status(id)).isEqualTo("PENDING"));
    browser.find("#bulk-confirm").click();
    browser.until(
        d ->
            d.findElements(By.cssSelector("#bulk-progress")).stream()
                .anyMatch(e -> !"running".equals(e.getAttribute("data-status"))));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(ids)
                    .allSatisfy(id -> assertThat(stack.status(id)).isEqualTo("CANCELLED")));
  }
}
