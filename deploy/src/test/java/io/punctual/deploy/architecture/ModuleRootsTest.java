package io.punctual.deploy.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Module = package root, read from the sources (the benchmarks included, which the class path of
 * these tests does not hold): every Maven module is in {@link Modules}, and every main source file
 * of a module lies in its root package or below; no two modules share a root.
 */
class ModuleRootsTest {
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");

  @Test
  void everyModuleOfTheBuildIsInTheTable() throws IOException {
    Path root = projectRoot();
    List<String> built = new ArrayList<>();
    Matcher m = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
    while (m.find()) {
      built.add(m.group(1));
    }
    assertThat(built)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(Modules.values()).map(Modules::directory).toList());
  }

  @Test
  void eachModulesMainSourcesLieUnderItsOwnRootPackage() throws IOException {
    Path root = projectRoot();
    List<String> outside = new ArrayList<>();
    for (Modules module : Modules.values()) {
      Path sources = root.resolve(module.directory()).resolve("src/main/java");
      if (!Files.isDirectory(sources)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(sources)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String pkg = packageOf(file);
          if (!pkg.equals(module.root()) && !pkg.startsWith(module.root() + ".")) {
            outside.add(root.relativize(file) + " (" + pkg + ", not under " + module.root() + ")");
          }
        }
      }
    }
    assertThat(outside).isEmpty();
  }

  @Test
  void noTwoModulesShareARootPackage() {
    List<String> roots = Arrays.stream(Modules.values()).map(Modules::root).toList();
    assertThat(new TreeSet<>(roots)).hasSameSizeAs(roots);
    for (String a : roots) {
      for (String b : roots) {
        assertThat(a.equals(b) || !a.startsWith(b + ".")).as("%s lies inside %s", a, b).isTrue();
      }
    }
  }

  private static String packageOf(Path file) {
    try {
      Matcher m = PACKAGE.matcher(Files.readString(file, StandardCharsets.UTF_8));
      return m.find() ? m.group(1) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path projectRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("deploy"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new UncheckedIOException(new IOException("no project root above the working directory"));
  }
}
