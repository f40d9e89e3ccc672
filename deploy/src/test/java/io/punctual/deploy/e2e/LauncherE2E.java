package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.handler.JobHandler;
import io.punctual.model.Job;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripts a user runs first, run as a user runs them: {@code ./mvnw} picks a JDK it can build
 * with, and {@code ./punctual} (on the jar {@code package} built, never building itself here) runs
 * handler jars with the JDK it chose and checks a configuration whole.
 */
class LauncherE2E {
  private static final Duration START = Duration.ofSeconds(90);
  private static final String JDK_17 = "/usr/lib/jvm/java-17-openjdk-amd64/bin";

  @TempDir Path tmp;

  private static Path root() {
    // <root>/deploy/target/punctual.jar
    return Path.of(System.getProperty("punctual.jar"))
        .toAbsolutePath()
        .getParent()
        .getParent()
        .getParent();
  }

  /** The launcher with the JDK running this test, using the jar as it is. */
  private PunctualProcess launcher(String name, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of("bash", root().resolve("punctual").toString()));
    command.addAll(List.of(args));
    Map<String, String> all = new HashMap<>(env);
    all.put("PUNCTUAL_NO_BUILD", "1");
    all.putIfAbsent("PUNCTUAL_JAVA_OPTS", "-Xmx256m");
    all.put("JAVA_HOME", System.getProperty("java.home"));
    return PunctualProcess.startCommand(tmp.resolve(name + ".log"), all, command);
  }

  @Test
  void mvnwBuildsWithAJdk21OrNewerWhateverJavaComesFirstOnThePath() throws Exception {
    Map<String, String> env = new HashMap<>();
    String path = System.getenv("PATH");
    env.put("PATH", Files.isDirectory(Path.of(JDK_17)) ? JDK_17 + ":" + path : path);
    env.put("JAVA_HOME", "");
    List<String> command = List.of("sh", root().resolve("mvnw").toString(), "-v");
    try (PunctualProcess mvnw =
        PunctualProcess.startCommand(tmp.resolve("mvnw.log"), env, command)) {
      assertThat(mvnw.awaitExit(START)).as(mvnw.tail()).isZero();
      Matcher version = Pattern.compile("Java version: (\\d+)").matcher(mvnw.output());
      assertThat(version.find()).as(mvnw.output()).isTrue();
      assertThat(Integer.parseInt(version.group(1))).isGreaterThanOrEqualTo(21);
    }
  }

  @Test
  void handlerJarsFromTheOptionAndTheEnvironmentRunOnTheLaunchersJdk() throws Exception {
    Path hello = handlerJar("HelloHandler", "hello");
    Path bye = handlerJar("ByeHandler", "bye");
    try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(tmp.resolve("pg"), false);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      postgres.createDatabaseIfMissing("punctual");
      Map<String, String> env = new HashMap<>();
      env.put("PUNCTUAL_DATABASE_URL", postgres.jdbcUrl("punctual"));
      env.put("PUNCTUAL_REDIS_URL", redis.url());
      env.put("PUNCTUAL_ADMIN_PORT", "0");
      try (PunctualProcess migrate = launcher("migrate", env, "migrate")) {
        assertThat(migrate.awaitExit(START)).as(migrate.tail()).isZero();
      }
      env.put("PUNCTUAL_HANDLERS", bye.toString());

      try (PunctualProcess worker =
          launcher("worker", env, "worker", "--handlers", hello.toString())) {
        String handlers = worker.awaitOutput("worker started .* handlers: (.*)$", START);

        assertThat(handlers)
            .isEqualTo(
                "built-in: fail, http, noop, sleep; custom: bye (acme.ByeHandler from file:"
                    + bye
                    + "), hello (acme.HelloHandler from file:"
                    + hello
                    + ")");
      }
    }
  }

  @Test
  void aotCacheTrainsOnDevAndLaterCommandsStartWithItUnlessTheJarIsNewer() throws Exception {
    Path cache = tmp.resolve("punctual.aot");
    Path workerCache = tmp.resolve("punctual-worker.aot");
    Map<String, String> env = new HashMap<>();
    env.put("PUNCTUAL_AOT_CACHE", cache.toString());
    if (Runtime.version().feature() < 25) {
      try (PunctualProcess train = launcher("aot-old-jdk", env, "aot-cache")) {
        assertThat(train.awaitExit(START)).isEqualTo(2);
        assertThat(train.output()).contains("punctual: aot-cache needs JDK 25 or newer");
      }
      return;
    }
    try (PunctualProcess refused = launcher("aot-refused", env, "aot-cache", "--jobs", "0")) {
      assertThat(refused.awaitExit(START)).isEqualTo(2);
      assertThat(refused.output())
          .contains("punctual: aot-cache --jobs must be a whole number from 1 to 999999999: 0");
      assertThat(cache).doesNotExist();
    }
    // A training run that fails (dev refuses its configuration): exit 1, dev's own lines shown,
    // and no cache left, although the JVM may write one at its exit.
    Map<String, String> badKey = new HashMap<>(env);
    badKey.put("PUNCTUAL_BOOTSTRAP_KEY", "short");
    try (PunctualProcess failed = launcher("aot-failed", badKey, "aot-cache", "--jobs", "10")) {
      assertThat(failed.awaitExit(Duration.ofMinutes(2))).as(failed.tail()).isEqualTo(1);
      assertThat(failed.output())
          .contains("punctual: the training run failed")
          .contains("auth.bootstrapKey (PUNCTUAL_BOOTSTRAP_KEY) must be at least")
          .doesNotContain("punctual: wrote");
      assertThat(cache).doesNotExist();
      assertThat(workerCache).doesNotExist();
    }
    try (PunctualProcess train = launcher("aot-train", env, "aot-cache", "--jobs", "2000")) {
      assertThat(train.awaitExit(Duration.ofMinutes(3))).as(train.tail()).isZero();
      assertThat(train.output()).contains("punctual: wrote " + cache + " (");
      assertThat(train.output()).contains(" and " + workerCache + " (");
    }
    assertThat(Files.size(cache)).isPositive();
    assertThat(Files.size(workerCache)).isPositive();
    // The training worker (a process of dev's) is gone with dev.
    assertThat(
            ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(workerCache.toString())))
        .isEmpty();

    // AOTMode=on: the JVM refuses to start unless it can use the cache it is given; a worker is
    // given the cache its own training process wrote, every other command dev's.
    env.put("PUNCTUAL_JAVA_OPTS", "-Xmx256m -XX:AOTMode=on -Xlog:aot=info");
    try (PunctualProcess help = launcher("aot-used", env, "--help")) {
      assertThat(help.awaitExit(START)).as(help.tail()).isZero();
      assertThat(help.output()).contains("Opened AOT cache " + cache);
    }
    try (PunctualProcess help = launcher("aot-worker", env, "worker", "--help")) {
      assertThat(help.awaitExit(START)).as(help.tail()).isZero();
      assertThat(help.output()).contains("Opened AOT cache " + workerCache);
    }

    // A jar built after the training run: the caches are not given to the JVM.
    Path jar = root().resolve("deploy/target/punctual.jar");
    FileTime older =
        FileTime.fromMillis(
            Files.getLastModifiedTime(jar).toMillis() - Duration.ofHours(1).toMillis());
    Files.setLastModifiedTime(cache, older);
    Files.setLastModifiedTime(workerCache, older);
    env.put("PUNCTUAL_JAVA_OPTS", "-Xmx256m -Xlog:aot=info");
    try (PunctualProcess help = launcher("aot-stale", env, "--help")) {
      assertThat(help.awaitExit(START)).as(help.tail()).isZero();
      assertThat(help.output()).doesNotContain(cache.toString()).contains("usage:");
    }
    try (PunctualProcess help = launcher("aot-stale-worker", env, "worker", "--help")) {
      assertThat(help.awaitExit(START)).as(help.tail()).isZero();
      assertThat(help.output())
          .doesNotContain(cache.toString())
          .doesNotContain(workerCache.toString())
          .contains("usage:");
    }
  }

  @Test
  void aTrainingWorkerThatDiesFailsTheTrainingRunAtOnceAndLeavesNoCache() throws Exception {
    Path cache = tmp.resolve("punctual.aot");
    Path workerCache = tmp.resolve("punctual-worker.aot");
    Map<String, String> env = Map.of("PUNCTUAL_AOT_CACHE", cache.toString());
    if (Runtime.version().feature() < 25) {
      try (PunctualProcess train = launcher("aot-old-jdk", env, "aot-cache")) {
        assertThat(train.awaitExit(START)).isEqualTo(2);
      }
      return;
    }
    // More jobs than the training worker could run before it is killed: the run cannot succeed.
    try (PunctualProcess train = launcher("aot-killed", env, "aot-cache", "--jobs", "5000000")) {
      String marker = "-XX:AOTCacheOutput=" + workerCache;
      ProcessHandle worker = null;
      long deadline = System.nanoTime() + START.toNanos();
      while (worker == null && System.nanoTime() < deadline && train.isAlive()) {
        worker =
            ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(marker))
                .findFirst()
                .orElse(null);
        Thread.sleep(200);
      }
      assertThat(worker).as("the training worker started; " + train.tail()).isNotNull();
      Thread.sleep(5_000); // its JVM up, draining the first backlog
      assertThat(worker.isAlive()).as(train.tail()).isTrue();
      worker.destroyForcibly(); // SIGKILL: no cache written at its exit

      // Dev sees it within its 100 ms poll and fails the run at once: its log says so within
      // seconds, not after the 10 minutes a run may take, nor the 5 million jobs.
      Matcher dir = Pattern.compile("on dev in (\\S+)\\)").matcher(train.output());
      assertThat(dir.find()).as(train.output()).isTrue();
      Path devLog = Path.of(dir.group(1), "dev.log");
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> assertThat(logSays(devLog, "training run failed")).as(train.tail()).isTrue());
      // Then dev stops, and its JVM still writes the cache it was asked for at exit (the launcher
      // deletes it): minutes on a loaded machine, hence the wider bound for the launcher's exit.
      assertThat(train.awaitExit(Duration.ofMinutes(4))).as(train.tail()).isEqualTo(1);
      assertThat(train.output())
          .contains("punctual: the training run failed")
          .contains("training run failed (the training worker's log: ")
          .contains("punctual: last lines of the training worker's log:")
          .doesNotContain("punctual: wrote");
    }
    assertThat(cache).doesNotExist();
    assertThat(workerCache).doesNotExist();
  }

  @Test
  void aHandlerJarThatIsNotThereStopsTheLauncherAtOnce() {
    try (PunctualProcess worker =
        launcher("missing", Map.of(), "worker", "--handlers", tmp.resolve("nope.jar").toString())) {
      assertThat(worker.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
      assertThat(worker.output())
          .contains("punctual: handler jar not found: " + tmp.resolve("nope.jar"));
    }
  }

  @Test
  void checkNamesEverySettingThatIsWrong() throws Exception {
    Path bad = tmp.resolve("bad.yml");
    Files.writeString(
        bad,
        """
        redis:
          url: bogus://x
        reaper:
          rescueAfter: PT5S
        worker:
          concurrency: 0
        """);
    Path good = tmp.resolve("good.yml");
    Files.writeString(good, "worker:\n  concurrency: 8\n");

    try (PunctualProcess check = launcher("check-bad", Map.of(), "check", bad.toString())) {
      assertThat(check.awaitExit(START)).isEqualTo(1);
      assertThat(check.output())
          .contains("punctual: 3 settings are wrong:")
          .contains("  - redis.url is not a Redis URL")
          .contains("  - worker.concurrency must be >= 1")
          .contains("  - reaper.rescueAfter (PT5S) must be longer than worker.heartbeatInterval");
    }
    try (PunctualProcess check = launcher("check-good", Map.of(), "check", good.toString())) {
      assertThat(check.awaitExit(START)).as(check.output()).isZero();
    }
  }

  /** A jar with one handler of {@code type} and its META-INF/services entry, compiled now. */
  private Path handlerJar(String className, String type) throws IOException, URISyntaxException {
    Path src = tmp.resolve(className + "-src/acme/" + className + ".java");
    Files.createDirectories(src.getParent());
    Files.writeString(
        src,
        """
        package acme;

        import io.punctual.handler.JobContext;
        import io.punctual.handler.JobHandler;
        import io.punctual.handler.JobResult;

        public final class %s implements JobHandler {
          @Override
          public String type() {
            return "%s";
          }

          @Override
          public JobResult handle(JobContext context) {
            return JobResult.success();
          }
        }
        """
            .formatted(className, type));
    Path classes = tmp.resolve(className + "-classes");
    Files.createDirectories(classes);
    String classPath =
        String.join(
            java.io.File.pathSeparator,
            location(JobHandler.class),
            location(Job.class),
            location(JsonNode.class));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status =
        javac.run(null, null, null, "-cp", classPath, "-d", classes.toString(), src.toString());
    assertThat(status).as("javac " + src).isZero();

    Path jar = tmp.resolve(type + ".jar");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(f));
        out.closeEntry();
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + JobHandler.class.getName()));
      out.write(("acme." + className + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }

  private static String location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  private static boolean logSays(Path log, String text) throws IOException {
    return Files.isRegularFile(log) && Files.readString(log).contains(text);
  }
}
