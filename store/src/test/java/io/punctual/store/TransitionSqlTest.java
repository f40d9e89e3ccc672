package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.JobState;
import io.punctual.model.JobState.Transition;
import io.punctual.store.StatusWrites.Pair;
import io.punctual.store.StatusWrites.Report;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The table in {@link JobState.Transition} is the single source of truth: every SQL resource of
 * every module that writes a job's status is read here ({@link StatusWrites}), and each (from, to)
 * pair it writes must be a named transition its header declares, with literal states. A status
 * write in a file this test does not know fails it too, so a new one is looked at; and so does one
 * in the strings of any module's Java sources ({@link JavaStrings}).
 */
class TransitionSqlTest {
  private static final String TRANSITIONS = "store/src/main/resources/io/punctual/store/";

  /** Every file that writes a job's status, and the transitions it makes (empty: inserts). */
  private static final Map<String, Set<Transition>> KNOWN =
      Map.ofEntries(
          Map.entry(TRANSITIONS + "JobTransitions/claim.sql", EnumSet.of(Transition.CLAIM)),
          Map.entry(TRANSITIONS + "JobTransitions/claimPlain.sql", EnumSet.of(Transition.CLAIM)),
          Map.entry(TRANSITIONS + "JobTransitions/writeClaims.sql", EnumSet.of(Transition.CLAIM)),
          // The parts of succeedRetryOrFail.sql (FinishStatement): one UPDATE per group.
          Map.entry(
              TRANSITIONS + "JobTransitions/finishSucceeded.sql", EnumSet.of(Transition.SUCCEED)),
          Map.entry(TRANSITIONS + "JobTransitions/finishRetried.sql", EnumSet.of(Transition.RETRY)),
          Map.entry(TRANSITIONS + "JobTransitions/finishFailed.sql", EnumSet.of(Transition.FAIL)),
          Map.entry(
              TRANSITIONS + "JobTransitions/finishSucceededUnwritten.sql",
              EnumSet.of(Transition.SUCCEED_UNWRITTEN)),
          Map.entry(
              TRANSITIONS + "JobTransitions/finishRetriedUnwritten.sql",
              EnumSet.of(Transition.RETRY_UNWRITTEN)),
          Map.entry(
              TRANSITIONS + "JobTransitions/finishFailedUnwritten.sql",
              EnumSet.of(Transition.FAIL_UNWRITTEN)),
          Map.entry(
              TRANSITIONS + "JobTransitions/rescue.sql",
              EnumSet.of(Transition.RESCUE, Transition.RESCUE_EXHAUSTED)),
          Map.entry(TRANSITIONS + "JobTransitions/handBack.sql", EnumSet.of(Transition.HAND_BACK)),
          Map.entry(TRANSITIONS + "JobTransitions/cancel.sql", cancels()),
          Map.entry(TRANSITIONS + "JobTransitions/cancelWorkflowSteps.sql", cancels()),
          Map.entry(
              TRANSITIONS + "JobTransitions/cancelScheduleFutureJobs.sql",
              EnumSet.of(Transition.CANCEL_PENDING)),
          Map.entry(
              TRANSITIONS + "JobTransitions/unblockOrSkip.sql",
              EnumSet.of(Transition.UNBLOCK, Transition.SKIP)),
          Map.entry(
              TRANSITIONS + "JobTransitions/rerun.sql",
              EnumSet.of(
                  Transition.RERUN_FAILED, Transition.RERUN_CANCELLED, Transition.RERUN_SKIPPED)),
          Map.entry(
              TRANSITIONS + "JobSubmissions/insertMany.sql", EnumSet.noneOf(Transition.class)));

  /** Statements that are parts of another's, by the JobTransitions method that runs them. */
  private static final Map<String, String> PARTS =
      Map.of(
          "finishSucceeded", "succeedRetryOrFail",
          "finishRetried", "succeedRetryOrFail",
          "finishFailed", "succeedRetryOrFail",
          "finishSucceededUnwritten", "succeedRetryOrFail",
          "finishRetriedUnwritten", "succeedRetryOrFail",
          "finishFailedUnwritten", "succeedRetryOrFail");

  /**
   * The only Java sources that write job rows themselves: benchmarks loading fixtures, each with
   * why. Every other status write is a statement of {@code JobTransitions} (or the submissions'
   * insert), in a {@code .sql} resource this test reads above.
   */
  private static final Map<String, String> FIXTURE_LOADERS =
      Map.of(
          "load-tests/src/main/java/io/punctual/bench/ScaleStore.java",
              "loads a history of millions of jobs, inserted in their final states at once",
          "load-tests/src/main/java/io/punctual/bench/FairnessBenchmark.java",
              "inserts a namespace's backlog of PENDING jobs with generate_series",
          "load-tests/src/main/java/io/punctual/bench/RlsBenchmark.java",
              "times a plain INSERT of a PENDING job with and without row-level security");

  private static Set<Transition> cancels() {
    return EnumSet.of(
        Transition.CANCEL_BLOCKED, Transition.CANCEL_PENDING, Transition.CANCEL_RUNNING);
  }

  @Test
  void everyStatusWriteOfEveryModuleIsAKnownTransitionOfTheTable() throws IOException {
    Path root = projectRoot();
    Map<String, Report> writers = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    int read = 0;
    for (Path sql : sqlResources(root)) {
      read++;
      String name = root.relativize(sql).toString().replace('\\', '/');
      Report report = StatusWrites.read(Files.readString(sql, StandardCharsets.UTF_8));
      report.problems().forEach(p -> problems.add(name + ": " + p));
      if (report.writesStatus()) {
        writers.put(name, report);
      }
    }
    assertThat(read).as("SQL resources read").isGreaterThan(50);
    assertThat(problems).isEmpty();
    assertThat(new TreeSet<>(writers.keySet()))
        .as(
            "the files that write a job's status (a new one must be added to KNOWN, and be a"
                + " statement of JobTransitions)")
        .isEqualTo(new TreeSet<>(KNOWN.keySet()));
    writers.forEach(
        (name, report) -> assertThat(report.declared()).as(name).isEqualTo(KNOWN.get(name)));
    Set<Transition> covered = EnumSet.noneOf(Transition.class);
    KNOWN.values().forEach(covered::addAll);
    assertThat(covered)
        .as("every transition of the table has its statement")
        .isEqualTo(EnumSet.allOf(Transition.class));
  }

  /**
   * SQL written in Java strings is read too: no main source of any module (the benchmarks included)
   * writes a job's status but the fixture loaders above, so a status write cannot hide from the
   * table by leaving the {@code .sql} resources.
   */
  @Test
  void noJavaSourceOfAnyModuleWritesAJobsStatus() throws IOException {
    Path root = projectRoot();
    Set<String> writers = new TreeSet<>();
    int read = 0;
    for (Path java : mainSources(root, ".java")) {
      read++;
      String sql = JavaStrings.sqlOf(Files.readString(java, StandardCharsets.UTF_8));
      if (StatusWrites.read(sql).writesStatus()) {
        writers.add(root.relativize(java).toString().replace('\\', '/'));
      }
    }
    assertThat(read).as("Java sources read").isGreaterThan(300);
    assertThat(writers)
        .as("Java sources that write job rows (only the benchmarks' fixture loaders may)")
        .isEqualTo(new TreeSet<>(FIXTURE_LOADERS.keySet()));
    assertThat(FIXTURE_LOADERS.keySet()).allMatch(f -> f.startsWith("load-tests/"));
  }

  @Test
  void findsAStatusWriteSplitAcrossJavaStringsOrInATextBlock() {
    String concatenated =
        """
        class X {
          // "UPDATE jobs SET status = 'SUCCEEDED'" in a comment is not code
          int f(Handle h, UUID id) {
            return h.createUpdate("UPDATE jobs " + "SET status = 'FAILED'"
                    + " WHERE id = " + id).execute();
          }
        }
        """;
    StatusWrites.Report split = StatusWrites.read(JavaStrings.sqlOf(concatenated));
    assertThat(split.writesStatus()).isTrue();
    assertThat(split.problems()).isNotEmpty();

    String block =
        "class Y { String s = \"\"\"\n  INSERT INTO jobs (id, status) VALUES (?, 'RUNNING')\n"
            + "  \"\"\"; }";
    assertThat(StatusWrites.read(JavaStrings.sqlOf(block)).writesStatus()).isTrue();
    assertThat(StatusWrites.read(JavaStrings.sqlOf("class Z { String s = \"SELECT 1\"; }")))
        .extracting(StatusWrites.Report::writesStatus)
        .isEqualTo(false);
  }

  @Test
  void eachStatementOfJobTransitionsIsAMethodOfTheSameName() throws ClassNotFoundException {
    Set<String> methods = new TreeSet<>();
    for (Method m : Class.forName("io.punctual.store.JobTransitions").getDeclaredMethods()) {
      methods.add(m.getName());
    }
    for (String file : KNOWN.keySet()) {
      if (file.contains("/JobTransitions/")) {
        String statement =
            file.substring(file.lastIndexOf('/') + 1, file.length() - ".sql".length());
        assertThat(methods).as(file).contains(PARTS.getOrDefault(statement, statement));
      }
    }
  }

  @Test
  void readsEveryTargetOfAStatementWithOneUpdatePerTarget() {
    Report report =
        StatusWrites.read(
            """
            -- transition: SUCCEED, RETRY
            WITH v AS (SELECT * FROM unnest(:ids) AS v(id)),
            a AS (
                UPDATE jobs j SET status = 'SUCCEEDED', result = CAST(:r AS jsonb)
                FROM v WHERE j.id = v.id AND j.status = 'RUNNING' AND j.attempt = :attempt
                RETURNING j.id
            ), b AS (
                UPDATE jobs j SET run_at = :at, status = 'PENDING'
                FROM v WHERE j.id = v.id AND j.status = 'RUNNING' RETURNING j.id
            )
            SELECT id FROM a UNION ALL SELECT id FROM b
            """);
    assertThat(report.problems()).isEmpty();
    assertThat(report.pairs())
        .containsExactlyInAnyOrder(
            new Pair(JobState.RUNNING, JobState.SUCCEEDED),
            new Pair(JobState.RUNNING, JobState.PENDING));
  }

  @Test
  void failsOnATargetStateGivenAsAParameter() {
    assertThat(
            problems(
                "-- transition: SUCCEED\n"
                    + "UPDATE jobs j SET status = v.next_state FROM v WHERE j.status = 'RUNNING'"))
        .anyMatch(p -> p.contains("target state is not a literal"));
  }

  @Test
  void failsOnASourceStateGivenAsAParameterOrNotGuardedAtAll() {
    assertThat(
            problems("-- transition: CLAIM\nUPDATE jobs SET status = 'RUNNING' WHERE status = :s"))
        .anyMatch(p -> p.contains("source state is not a literal"));
    assertThat(problems("-- transition: CLAIM\nUPDATE jobs SET status = 'RUNNING' WHERE id = :id"))
        .anyMatch(p -> p.contains("without guarding the source state"));
    assertThat(problems("-- transition: CLAIM\nUPDATE jobs SET status = 'RUNNING'"))
        .anyMatch(p -> p.contains("without a WHERE"));
    assertThat(
            problems(
                "-- transition: CLAIM\n"
                    + "UPDATE jobs SET status = 'RUNNING' WHERE status = 'PENDING' OR id = :id"))
        .anyMatch(p -> p.contains("OR"));
    assertThat(
            problems(
                "-- transition: CANCEL_PENDING\n"
                    + "UPDATE jobs SET status = 'CANCELLED' WHERE status <> 'SUCCEEDED'"))
        .anyMatch(p -> p.contains("negative guard"));
  }

  @Test
  void failsOnAPairNotInTheTable() {
    assertThat(
            problems(
                "-- transition: SUCCEED\n"
                    + "UPDATE jobs SET status = 'PENDING' WHERE status = 'SUCCEEDED' RETURNING id"))
        .anyMatch(
            p -> p.contains("no transition in JobState.Transition leads SUCCEEDED -> PENDING"));
    assertThat(
            problems(
                "-- transition: CANCEL_PENDING, CANCEL_RUNNING\n"
                    + "UPDATE jobs SET status = 'CANCELLED'"
                    + " WHERE status IN ('PENDING', 'RUNNING', 'FAILED')"))
        .anyMatch(p -> p.contains("leads FAILED -> CANCELLED"));
  }

  @Test
  void failsOnAHeaderThatDoesNotSayWhatTheStatementDoes() {
    assertThat(problems("UPDATE jobs SET status = 'RUNNING' WHERE status = 'PENDING'"))
        .anyMatch(p -> p.contains("without a header"));
    assertThat(
            problems(
                "-- transition: RESCUE\nUPDATE jobs SET status = 'PENDING' WHERE status = 'BLOCKED'"))
        .anyMatch(p -> p.contains("the header names [RESCUE]"));
    assertThat(
            problems(
                "-- transition: NUDGE\nUPDATE jobs SET status = 'RUNNING' WHERE status = 'PENDING'"))
        .anyMatch(p -> p.contains("NUDGE, which is not in JobState.Transition"));
  }

  @Test
  void failsOnANewJobThatDoesNotStartInAnInitialStateGivenLiterally() {
    assertThat(problems("INSERT INTO jobs (id, status, run_at) VALUES (:id, 'RUNNING', :runAt)"))
        .anyMatch(p -> p.contains("may only start"));
    assertThat(problems("INSERT INTO jobs (id, status) SELECT v.id, v.status FROM v"))
        .anyMatch(p -> p.contains("status is not a literal"));
    assertThat(
            problems(
                "INSERT INTO jobs (id, status) SELECT v.id,"
                    + " CASE WHEN v.waits THEN 'BLOCKED' ELSE 'PENDING' END FROM v"))
        .isEmpty();
  }

  @Test
  void failsOnWritesItCannotRead() {
    assertThat(
            problems(
                "UPDATE jobs SET (status, run_at) = ('PENDING', now()) WHERE status = 'RUNNING'"))
        .anyMatch(p -> p.contains("tuple"));
    assertThat(problems("MERGE INTO jobs j USING v ON j.id = v.id WHEN MATCHED THEN DELETE"))
        .anyMatch(p -> p.contains("cannot read"));
  }

  @Test
  void leavesAloneUpdatesThatDoNotTouchTheStatus() {
    Report heartbeat =
        StatusWrites.read(
            "UPDATE jobs j SET heartbeat_at = :now WHERE j.id = ANY(:ids) AND j.status = 'RUNNING'");
    assertThat(heartbeat.writesStatus()).isFalse();
    assertThat(heartbeat.problems()).isEmpty();
  }

  private static List<String> problems(String sql) {
    return StatusWrites.read(sql).problems();
  }

  /** The .sql files under every module's src/main/resources. */
  private static List<Path> sqlResources(Path root) throws IOException {
    return mainSources(root, ".sql");
  }

  /** The files ending in {@code suffix} under every module's src/main. */
  private static List<Path> mainSources(Path root, String suffix) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
        Path main = module.resolve("src/main");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          files.filter(p -> p.toString().endsWith(suffix)).sorted().forEach(out::add);
        }
      }
    }
    return out;
  }

  /** The directory holding the Maven wrapper and the modules, found from the working directory. */
  private static Path projectRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("store"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new UncheckedIOException(new IOException("no project root above the working directory"));
  }
}
