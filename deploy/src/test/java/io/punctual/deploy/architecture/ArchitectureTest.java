package io.punctual.deploy.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.punctual.client.PunctualClient;
import io.punctual.handler.JobHandler;
import io.punctual.model.Job;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules the modules keep, checked on the main classes of every module (deploy's test class path
 * holds them all; tests, test jars and benchmarks are left out).
 */
@AnalyzeClasses(
    packages = "io.punctual",
    importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.NoTestJars.class})
class ArchitectureTest {

  /**
   * No cycle between any two packages, each taken on its own ({@code io.punctual.worker} and {@code
   * io.punctual.worker.run} are two slices): a module's root package holds its wiring (like {@code
   * io.punctual.worker.Worker}), which uses the feature packages; settings live in {@code config}
   * packages that the features use, so nothing points back at the root. ArchUnit sees the
   * dependencies of code; {@link PackageCyclesTest} also sees those the compiler leaves only in the
   * constant pool (a constant it inlined).
   */
  @ArchTest
  static final ArchRule packagesHaveNoCycles =
      slices().matching("io.punctual.(**)").should().beFreeOfCycles();

  /**
   * No cycle between feature packages ({@code io.punctual.<module>.<feature>}, subpackages
   * included), e.g. {@code queue.lease} and {@code queue.redis}.
   */
  @ArchTest
  static final ArchRule featurePackagesHaveNoCycles =
      slices().matching("io.punctual.(*).(*)..").should().beFreeOfCycles();

  /**
   * No cycle between modules: a module is its root package ({@code io.punctual.<root>..}, {@link
   * Modules}), so these slices are the Maven modules.
   */
  @ArchTest
  static final ArchRule modulesHaveNoCycles =
      slices().matching("io.punctual.(*)..").should().beFreeOfCycles();

  /**
   * Each module uses only the modules {@link Modules} lists below it (besides libraries and the
   * JDK): PostgreSQL's store knows nothing of Redis, the queue nothing of the roles, no role
   * another, {@code common} only the model.
   */
  @ArchTest
  static void eachModuleUsesOnlyTheModulesBelowIt(JavaClasses classes) {
    for (Modules m : Modules.values()) {
      if (m.uses() == null) {
        continue;
      }
      List<String> allowed = new ArrayList<>();
      allowed.add(m.root() + "..");
      m.uses().forEach(u -> allowed.add(u.root() + ".."));
      classes()
          .that()
          .resideInAPackage(m.root() + "..")
          .should()
          .onlyDependOnClassesThat(
              resideOutsideOfPackage("io.punctual..")
                  .or(resideInAnyPackage(allowed.toArray(String[]::new))))
          .as("module " + m.directory() + " uses only " + m.uses())
          .check(classes);
    }
  }

  /**
   * Time comes from an injected {@link Clock}; only the wiring picks the system clock: deploy's,
   * and the Spring Boot starter's auto-configuration, which is an application's wiring and takes
   * the context's {@code Clock} bean when there is one.
   */
  @ArchTest
  static final ArchRule systemClockOnlyInTheWiring =
      noClasses()
          .that()
          .resideOutsideOfPackage("io.punctual.deploy..")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.spring.PunctualAutoConfiguration")
          .should()
          .callMethodWhere(
              new DescribedPredicate<JavaCall<?>>("Clock.system*(...)") {
                @Override
                public boolean test(JavaCall<?> call) {
                  return call.getTargetOwner().isEquivalentTo(Clock.class)
                      && call.getName().startsWith("system");
                }
              });

  /**
   * {@code Stores} (every store of a process) is for the wiring: deploy's commands, each role's
   * assembler ({@code ApiModule}, {@code PlannerWiring}, {@code Reaper}, {@code DeathWatchLoop},
   * {@code Worker}; the API's {@code RemoteWorkers} and {@code RemoteSession}, which run a worker
   * for each remote worker), the embedded pieces' ({@code app}: {@code Backend}, {@code
   * PunctualWorker}, {@code PunctualJobs}) and the benchmarks. Everything else takes the narrow
   * collaborators it uses.
   */
  @ArchTest
  static final ArchRule onlyTheWiringTakesStores =
      noClasses()
          .that()
          .resideOutsideOfPackages("io.punctual.deploy..", "io.punctual.bench..")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.queue.Stores")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.api.ApiModule")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.planner.plan.PlannerWiring")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.reaper.Reaper")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.reaper.DeathWatchLoop")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.worker.Worker")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.app.Backend")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.app.PunctualWorker")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.app.PunctualJobs")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.api.remote.RemoteWorkers")
          .and()
          .doNotHaveFullyQualifiedName("io.punctual.api.remote.RemoteSession")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("io.punctual.queue.Stores");

  /** The API shares schedule definitions with the planner, not the planner's internals. */
  @ArchTest
  static final ArchRule apiDoesNotUsePlannerInternals =
      noClasses()
          .that()
          .resideInAPackage("io.punctual.api..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.punctual.planner..");

  /** The handler SPI users compile against: itself, the job model, Jackson and the JDK. */
  @ArchTest
  static final ArchRule handlerSpiStaysSmall =
      classes()
          .that(comeFromTheJarOf(JobHandler.class))
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "io.punctual.handler", "io.punctual.model", "com.fasterxml.jackson..", "java..");

  /** The job model: itself, Jackson and the JDK. */
  @ArchTest
  static final ArchRule modelStaysPlain =
      classes()
          .that(comeFromTheJarOf(Job.class))
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("io.punctual.model", "com.fasterxml.jackson..", "java..");

  /** Both rules above look at some classes: the SPI and the model are where they are expected. */
  @ArchTest
  static void spiAndModelAreImported(JavaClasses classes) {
    assertThat(classes.that(comeFromTheJarOf(JobHandler.class)))
        .extracting(JavaClass::getSimpleName)
        .contains("JobHandler", "JobContext", "JobResult", "FollowUp")
        .doesNotContain("JobHandlers");
    assertThat(classes.that(comeFromTheJarOf(Job.class)))
        .extracting(JavaClass::getSimpleName)
        .contains("Job", "NewJob", "JobState", "Priority", "Backoff");
  }

  /**
   * Services on Java 17 compile handlers against the SPI and call the API with the client: their
   * class files (and the model's) are Java 17's (major version 61), whatever JDK built them.
   */
  @Test
  void handlerSpiModelAndClientAreJava17() throws IOException {
    assertThat(classFileVersion(JobHandler.class)).isEqualTo(61);
    assertThat(classFileVersion(Job.class)).isEqualTo(61);
    assertThat(classFileVersion(PunctualClient.class)).isEqualTo(61);
  }

  private static int classFileVersion(Class<?> type) throws IOException {
    try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class");
        DataInputStream data = new DataInputStream(in)) {
      data.readInt(); // 0xCAFEBABE
      data.readUnsignedShort(); // minor
      return data.readUnsignedShort();
    }
  }

  /** Classes loaded from the same class path entry (jar or classes directory) as {@code type}. */
  private static DescribedPredicate<JavaClass> comeFromTheJarOf(Class<?> type) {
    String entry;
    try {
      entry = type.getProtectionDomain().getCodeSource().getLocation().toURI().toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    String root = normalized(entry.endsWith(".jar") ? "jar:" + entry + "!/" : entry);
    return DescribedPredicate.describe(
        "come from " + entry,
        c ->
            c.getSource()
                .map(s -> normalized(s.getUri().toString()).startsWith(root))
                .orElse(false));
  }

  /** {@code file:///x} and {@code file:/x} name the same file. */
  private static String normalized(String uri) {
    return uri.replace("file:///", "file:/");
  }

  /** Leaves out test jars (store's {@code TestStores}...), like the tests themselves. */
  static final class NoTestJars implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("-tests.jar") && !location.contains("/test-classes/");
    }
  }
}
