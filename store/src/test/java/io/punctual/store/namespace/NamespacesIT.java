package io.punctual.store.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.testing.Jobs;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NamespacesIT {
  private final TestClock clock = new TestClock(Instant.parse("2026-11-26T00:00:00Z"));
  private final StoreStack stack = new StoreStack(clock);
  private final Namespaces store = new Namespaces(stack.database.jdbi(), clock);

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void theDefaultNamespaceIsThereFromTheMigration() {
    Namespace ns = store.find("default").orElseThrow();

    assertThat(ns.active()).isTrue();
    assertThat(ns.quota()).isEqualTo(Quota.UNLIMITED);
  }

  @Test
  void createIsRefusedForANameTakenAndEnsureKeepsWhatIsThere() {
    Quota quota = new Quota(5, 10, 100L, 2048);
    assertThat(store.create("tenant", quota))
        .hasValueSatisfying(n -> assertThat(n.quota()).isEqualTo(quota));

    assertThat(store.create("tenant", Quota.UNLIMITED)).isEmpty();
    assertThat(store.ensure("tenant").quota()).isEqualTo(quota);
    assertThat(store.ensure("brand-new").quota()).isEqualTo(Quota.UNLIMITED);
  }

  @Test
  void aQuotaChangeBumpsItsVersion() {
    long before = store.create("v", Quota.UNLIMITED).orElseThrow().quotaVersion();

    Namespace after = store.setQuota("v", new Quota(1, 1, null, null)).orElseThrow();

    assertThat(after.quotaVersion()).isEqualTo(before + 1);
    assertThat(store.setQuota("missing", Quota.UNLIMITED)).isEmpty();
  }

  @Test
  void deactivatingKeepsTheFirstTimeAndReactivatingClearsIt() {
    store.create("switch", Quota.UNLIMITED);
    Instant first = clock.instant();
    store.setActive("switch", false);
    clock.advance(Duration.ofMinutes(1));

    assertThat(store.setActive("switch", false).orElseThrow().deactivatedAt()).isEqualTo(first);
    assertThat(store.inactive()).containsExactly("switch");
    Namespace back = store.setActive("switch", true).orElseThrow();
    assertThat(back.active()).isTrue();
    assertThat(back.deactivatedAt()).isNull();
    assertThat(store.inactive()).isEmpty();
  }

  @Test
  void pendingJobsAreCountedUpToTheCap() {
    stack.submissions.submit(
        List.of(
            Jobs.aJob().namespace("busy").build(),
            Jobs.aJob().namespace("busy").build(),
            Jobs.aJob().namespace("busy").build(),
            Jobs.aJob().namespace("other").build()));

    assertThat(store.countPending("busy", 100)).isEqualTo(3);
    assertThat(store.countPending("busy", 2)).isEqualTo(2);
    assertThat(store.countPending("idle", 100)).isZero();
  }

  @Test
  void listsOnlyTheNamesAskedForAfterTheCursor() {
    for (String name : List.of("a-1", "a-2", "a-3")) {
      store.create(name, Quota.UNLIMITED);
    }

    assertThat(store.list("a-1", 10, List.of("a-1", "a-3", "zzz")))
        .extracting(Namespace::name)
        .containsExactly("a-3");
    assertThat(store.list(null, 2, null)).extracting(Namespace::name).containsExactly("a-1", "a-2");
  }

  @Test
  void inactiveNamespacesAreReadAgainOnlyOnceTheRefreshHasPassed() {
    store.create("later-off", Quota.UNLIMITED);
    ClaimableNamespaces inactive = new ClaimableNamespaces(store, clock, Duration.ofSeconds(5));
    assertThat(inactive.isActive("later-off")).isTrue();

    store.setActive("later-off", false);
    clock.advance(Duration.ofSeconds(4));
    assertThat(inactive.isActive("later-off")).isTrue(); // not read again yet
    clock.advance(Duration.ofSeconds(1));
    assertThat(inactive.isActive("later-off")).isFalse();
    assertThat(inactive.isActive("never-created")).isTrue();

    store.setActive("later-off", true);
    inactive.runOnce();
    assertThat(inactive.isActive("later-off")).isTrue();
  }

  @Test
  void weightsDefaultToOneAndAreReadWithTheActiveFlags() {
    assertThat(store.create("heavy", Quota.UNLIMITED, 3).orElseThrow().weight()).isEqualTo(3);
    assertThat(store.create("plain", Quota.UNLIMITED).orElseThrow().weight()).isEqualTo(1);
    assertThat(store.find("default").orElseThrow().weight()).isEqualTo(1);
    ClaimableNamespaces claimable = new ClaimableNamespaces(store, clock, Duration.ofSeconds(5));
    assertThat(claimable.weight("heavy")).isEqualTo(3);
    assertThat(claimable.weight("never-created")).isEqualTo(1);

    assertThat(store.setWeight("plain", 1000).orElseThrow().weight()).isEqualTo(1000);
    assertThat(store.setWeight("missing", 2)).isEmpty();
    assertThat(claimable.weight("plain")).isEqualTo(1); // not read again yet
    clock.advance(Duration.ofSeconds(5));
    assertThat(claimable.weight("plain")).isEqualTo(1000);
    // The table refuses what the API refuses.
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> store.setWeight("plain", 0)))
        .isNotNull();
  }
}
