package io.punctual.deploy.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of every Markdown file of the repository names a file that exists, and an
 * anchor ({@code page.md#section}) names a heading of that page, as GitHub derives anchors from
 * headings (lower case, punctuation dropped, spaces to hyphens, {@code -1}, {@code -2} for
 * repeats). Links in code blocks and code spans are left alone.
 */
class DocsLinksTest {
  private static final Pattern LINK =
      Pattern.compile(
          "(?<!!)\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)"
              + "|!\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
  private static final Pattern FENCE = Pattern.compile("^\\s*(```+|~~~+)");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void everyRelativeLinkAndAnchorOfTheDocsResolves() throws IOException {
    Path root = repositoryRoot();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path md : markdownFiles(root)) {
      String text = withoutCode(Files.readAllLines(md, StandardCharsets.UTF_8), true);
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1) != null ? m.group(1) : m.group(2);
        if (target.matches("^[a-z]+:.*") || target.startsWith("//")) {
          continue;
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path dest = file.isEmpty() ? md : md.getParent().resolve(file).normalize();
        String where = root.relativize(md) + ": " + target;
        if (!Files.exists(dest)) {
          broken.add(where + " (no such file)");
        } else if (anchor != null
            && dest.toString().endsWith(".md")
            && !anchorsOf(dest).contains(anchor)) {
          broken.add(where + " (no such heading)");
        }
      }
    }
    assertThat(checked).as("relative links read").isGreaterThan(200);
    assertThat(broken).isEmpty();
  }

  private Set<String> anchorsOf(Path md) {
    return anchors.computeIfAbsent(
        md,
        p -> {
          Set<String> out = new HashSet<>();
          Map<String, Integer> seen = new HashMap<>();
          try {
            for (String line :
                withoutCode(Files.readAllLines(p, StandardCharsets.UTF_8), false).split("\n")) {
              Matcher h = HEADING.matcher(line);
              if (h.matches()) {
                String slug = slug(h.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                out.add(n == 0 ? slug : slug + "-" + n);
              }
              Matcher a = HTML_ANCHOR.matcher(line);
              while (a.find()) {
                out.add(a.group(1));
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return out;
        });
  }

  /** GitHub's anchor of a heading. */
  static String slug(String heading) {
    String text =
        heading.replaceAll("<[^>]+>", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").strip();
    text = Normalizer.normalize(text, Normalizer.Form.NFC).toLowerCase(java.util.Locale.ROOT);
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .filter(c -> c == '-' || c == '_' || c == ' ' || Character.isLetterOrDigit(c))
        .forEach(c -> out.appendCodePoint(c == ' ' ? '-' : c));
    return out.toString();
  }

  /** The text with fenced blocks blanked and, if {@code spans}, code spans too (lines kept). */
  private static String withoutCode(List<String> lines, boolean spans) {
    StringBuilder out = new StringBuilder();
    String fence = null;
    for (String line : lines) {
      Matcher f = FENCE.matcher(line);
      if (f.find()) {
        if (fence == null) {
          fence = f.group(1).substring(0, 3);
        } else if (line.strip().startsWith(fence)) {
          fence = null;
        }
        out.append('\n');
        continue;
      }
      if (fence == null) {
        out.append(spans ? line.replaceAll("`[^`]*`", " ") : line);
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static List<Path> markdownFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".md"))
          .filter(
              p -> {
                String rel = root.relativize(p).toString();
                return !rel.startsWith(".git")
                    && !rel.contains("target/")
                    && !rel.contains("node_modules/")
                    && !rel.startsWith(".punctual-data");
              })
          .sorted()
          .toList();
    }
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new UncheckedIOException(
        new IOException("no repository root above the working directory"));
  }

  @Test
  void anchorsAreGithubs() {
    assertThat(slug("Recovery: what the reaper repairs"))
        .isEqualTo("recovery-what-the-reaper-repairs");
    assertThat(slug("`dev`")).isEqualTo("dev");
    assertThat(slug("Row-level security as a second wall: measured, not adopted"))
        .isEqualTo("row-level-security-as-a-second-wall-measured-not-adopted");
  }
}
