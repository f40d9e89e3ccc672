package io.punctual.deploy.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver: both paths are given, so
 * Selenium never looks for (or downloads) a browser or a driver. A fresh profile per instance.
 */
final class HeadlessChromium implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "screenshots");

  final WebDriver driver;
  private final Path profile;

  HeadlessChromium() {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException(
          "the console's browser tests need Debian's chromium and chromium-driver"
              + " (/usr/bin/chromium, /usr/bin/chromedriver): apt-get install -y chromium"
              + " chromium-driver (.ci/run installs them when missing)");
    }
    try {
      profile = Files.createTempDirectory("punctual-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
  }

  void open(String url) {
    driver.get(url);
  }

  WebElement find(String css) {
    return until(d -> d.findElements(By.cssSelector(css)).stream().findFirst().orElse(null));
  }

  List<WebElement> all(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  /**
   * Waits (at most 30 s) for {@code condition} to give something other than null or false. An
   * element the page replaced between being found and being read (it re-renders on its polls) is
   * read again at the next try, not a failure.
   */
  <T> T until(ExpectedCondition<T> condition) {
    return new WebDriverWait(driver, Duration.ofSeconds(30), Duration.ofMillis(100))
        .ignoring(StaleElementReferenceException.class)
        .until(condition);
  }

  /** Waits until the element matched by {@code css} shows a text containing {@code text}. */
  WebElement untilText(String css, String text) {
    return until(
        d ->
            d.findElements(By.cssSelector(css)).stream()
                .filter(e -> e.getText().contains(text))
                .findFirst()
                .orElse(null));
  }

  Object script(String js, Object... args) {
    return ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(js, args);
  }

  Object asyncScript(String js, Object... args) {
    return ((org.openqa.selenium.JavascriptExecutor) driver).executeAsyncScript(js, args);
  }

  /** Signs in on {@code base}/ui with {@code key} and waits for the navigation bar. */
  void signIn(String base, String key) {
    open(base + "/ui/");
    script("sessionStorage.clear();");
    open(base + "/ui/#/overview");
    find("#api-key").sendKeys(key);
    find("#sign-in button[type=submit]").click();
    find("#whoami");
  }

  /** Saves target/screenshots/{@code name}.png (kept as a test artifact). */
  Path screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      Path file = SCREENSHOTS.resolve(name + ".png");
      byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
      Files.write(file, png);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      deleteQuietly(profile);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException ignored) {
      // a temporary directory; the system cleans it up eventually
    }
  }
}
