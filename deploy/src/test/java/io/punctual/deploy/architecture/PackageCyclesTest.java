package io.punctual.deploy.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No package cycle in the main classes of any module on this class path, read with {@code jdeps}
 * ({@link PackageCycles}): unlike the ArchUnit rules it also sees a dependency through a constant
 * the compiler inlined.
 */
class PackageCyclesTest {

  @Test
  void noPackageCycleInTheMainClassesOfAnyModule() {
    // Main classes only: jdeps also reads the class path's directories, and tests may sit in a
    // module's packages (deploy's own, for one) and use anything.
    List<String> mainClassPath = new ArrayList<>();
    List<Path> targets = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.endsWith("test-classes") || entry.endsWith("-tests.jar")) {
        continue;
      }
      mainClassPath.add(entry);
      Path path = Path.of(entry);
      String name = path.getFileName() == null ? "" : path.getFileName().toString();
      boolean moduleClasses =
          entry.endsWith(File.separator + "target" + File.separator + "classes")
              && Files.isDirectory(path.resolve("io/punctual"));
      boolean moduleJar = name.startsWith("punctual-") && name.endsWith(".jar");
      if (moduleClasses || moduleJar) {
        targets.add(path);
      }
    }
    assertThat(targets).as("the modules' main classes on the class path").hasSizeGreaterThan(10);
    Map<String, Set<String>> graph =
        PackageCycles.graph(targets, String.join(File.pathSeparator, mainClassPath));
    assertThat(graph.keySet())
        .as("packages read")
        .contains("io.punctual.store", "io.punctual.queue", "io.punctual.api.auth");
    List<String> cycles = new ArrayList<>();
    for (Set<String> cycle : PackageCycles.cycles(graph)) {
      for (String from : cycle) {
        graph.get(from).stream()
            .filter(cycle::contains)
            .forEach(to -> cycles.add(from + " -> " + to));
      }
    }
    assertThat(cycles).as("package dependencies that close a cycle").isEmpty();
  }

  /** The check sees a cycle that only an inlined constant closes, which ArchUnit does not. */
  @Test
  void findsACycleClosedOnlyByAnInlinedConstant(@TempDir Path dir) throws IOException {
    Path sources = dir.resolve("src");
    write(
        sources.resolve("io/punctual/x/a/Settings.java"),
        "package io.punctual.x.a; public class Settings {"
            + " public int min = io.punctual.x.b.Secrets.MIN_LENGTH; }");
    write(
        sources.resolve("io/punctual/x/b/Secrets.java"),
        "package io.punctual.x.b; public class Secrets { public static final int MIN_LENGTH = 32;"
            + " static Object settings() { return new io.punctual.x.a.Settings(); } }");
    Path classes = dir.resolve("classes");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status =
        javac.run(
            null,
            null,
            null,
            "-d",
            classes.toString(),
            sources.resolve("io/punctual/x/a/Settings.java").toString(),
            sources.resolve("io/punctual/x/b/Secrets.java").toString());
    assertThat(status).isZero();

    Map<String, Set<String>> graph = PackageCycles.graph(List.of(classes), classes.toString());

    assertThat(graph.get("io.punctual.x.a")).contains("io.punctual.x.b");
    assertThat(PackageCycles.cycles(graph))
        .containsExactly(Set.of("io.punctual.x.a", "io.punctual.x.b"));
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }
}
