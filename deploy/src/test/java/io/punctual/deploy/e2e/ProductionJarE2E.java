package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two jars deploy builds: the dev distribution ({@code punctual.jar}) carries the embedded
 * PostgreSQL and Redis and the fault injection; the production jar ({@code
 * punctual-production.jar}) carries neither, and its {@code dev} says so in one sentence.
 */
class ProductionJarE2E {
  private static final Path DEV = Path.of(System.getProperty("punctual.jar"));
  private static final Path PRODUCTION = Path.of(System.getProperty("punctual.production.jar"));

  @Test
  void onlyTheDevDistributionCarriesTheEmbeddedServersAndTheFaults() throws IOException {
    List<String> dev = entries(DEV);
    List<String> production = entries(PRODUCTION);

    assertThat(dev)
        .contains(
            "postgres-linux-x86_64.txz",
            "io/punctual/embedded/EmbeddedPostgresServer.class",
            "io/punctual/faults/CrashPoint.class",
            "META-INF/services/io.punctual.api.jobs.AfterCommitHook")
        .anyMatch(e -> e.startsWith("redis-server-"));
    assertThat(production)
        .contains(
            "io/punctual/deploy/PunctualApplication.class",
            "io/punctual/handler/JobHandler.class",
            "io/punctual/api/jobs/AfterCommitHook.class")
        .doesNotContain(
            "postgres-linux-x86_64.txz", "META-INF/services/io.punctual.api.jobs.AfterCommitHook")
        .noneMatch(e -> e.startsWith("redis-server-"))
        .noneMatch(e -> e.startsWith("io/punctual/embedded/"))
        .noneMatch(e -> e.startsWith("io/punctual/faults/"))
        .noneMatch(e -> e.startsWith("io/zonky/"))
        .noneMatch(e -> e.startsWith("redis/embedded/"));
    // The binaries alone are ~20 MB compressed.
    assertThat(Files.size(DEV) - Files.size(PRODUCTION)).isGreaterThan(15_000_000L);
  }

  @Test
  void devInTheProductionJarSaysItNeedsTheDevDistribution(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("dev.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(List.of("-jar", PRODUCTION.toString(), "dev"));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("PUNCTUAL_"));
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    Process process = builder.start();
    try {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isEqualTo(2);
    } finally {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(output)
        .contains("punctual: dev needs the dev distribution (deploy/target/punctual.jar")
        .doesNotContain("Exception");
    assertThat(dir.resolve(".punctual-data")).doesNotExist();
  }

  private static List<String> entries(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.stream().map(ZipEntry::getName).toList();
    }
  }
}
