package io.punctual.queue.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.JobId;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Three independent Redis nodes, as Redlock is meant to run. */
class RedlockIT {
  private final List<EmbeddedRedisServer> servers = new ArrayList<>();
  private final List<RedisConnector> clients = new ArrayList<>();
  private Redlock redlock;
  private final UUID a = JobId.forScheduledTime(Instant.now());
  private final UUID b = JobId.forScheduledTime(Instant.now());

  @BeforeEach
  void start() {
    List<RedisConnection> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      EmbeddedRedisServer server = EmbeddedRedisServer.start(null);
      servers.add(server);
      RedisConnector client = RedisConnector.standalone(server.url());
      clients.add(client);
      nodes.add(client.connect());
    }
    redlock = new Redlock(nodes, new RedisKeys("lock-test"));
  }

  @AfterEach
  void stop() {
    clients.forEach(RedisConnector::close);
    servers.forEach(
        s -> {
          try {
            s.close();
          } catch (RuntimeException ignored) {
            // already stopped by the test
          }
        });
  }

  @Test
  void aFailedAcquireLeavesTheHoldersOwnLeaseAlone() {
    assertThat(redlock.acquire(List.of(a), "w1", Duration.ofSeconds(10))).containsExactly(a);

    // The same worker pops a duplicate queue entry of the job it runs: NX refuses, nothing else.
    assertThat(redlock.acquire(List.of(a, b), "w1", Duration.ofSeconds(10))).containsExactly(b);

    assertThat(redlock.isHeld(a)).isTrue();
    assertThat(redlock.renew(List.of(a), "w1", Duration.ofSeconds(10))).containsExactly(a);
  }

  @Test
  void aBatchLargerThanOneScriptCallIsLeasedRenewedAndReleasedKeyByKey() {
    // A standalone node takes a batch in script calls of KEYS_PER_SCRIPT keys: each key keeps its
    // own answer across the calls' boundaries.
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < Redlock.KEYS_PER_SCRIPT * 2 + 7; i++) {
      ids.add(JobId.forScheduledTime(Instant.now()));
    }
    List<UUID> taken = List.of(ids.get(3), ids.get(Redlock.KEYS_PER_SCRIPT), ids.getLast());
    assertThat(redlock.acquire(taken, "w2", Duration.ofSeconds(10)))
        .containsExactlyInAnyOrderElementsOf(taken);

    Set<UUID> held = redlock.acquire(ids, "w1", Duration.ofSeconds(10));
    assertThat(held).hasSize(ids.size() - taken.size()).doesNotContainAnyElementsOf(taken);
    assertThat(redlock.renew(ids, "w1", Duration.ofSeconds(10))).isEqualTo(held);
    assertThat(redlock.heldAmong(ids)).containsExactlyInAnyOrderElementsOf(ids);

    redlock.release(ids, "w1"); // the leases of w2 stay
    assertThat(redlock.heldAmong(ids)).containsExactlyInAnyOrderElementsOf(taken);
    assertThat(redlock.renew(ids, "w2", Duration.ofSeconds(10)))
        .containsExactlyInAnyOrderElementsOf(taken);
  }

  @Test
  void aLeaseHasOneHolderUntilReleased() {
    assertThat(redlock.quorum()).isEqualTo(2);
    assertThat(redlock.acquire(List.of(a, b), "w1", Duration.ofSeconds(10)))
        .containsExactlyInAnyOrder(a, b);
    assertThat(redlock.acquire(List.of(a), "w2", Duration.ofSeconds(10))).isEmpty();
    assertThat(redlock.isHeld(a)).isTrue();

    redlock.release(List.of(a), "w2"); // not the holder: no effect
    assertThat(redlock.acquire(List.of(a), "w2", Duration.ofSeconds(10))).isEmpty();

    redlock.release(List.of(a), "w1");
    assertThat(redlock.isHeld(a)).isFalse();
    assertThat(redlock.acquire(List.of(a), "w2", Duration.ofSeconds(10))).containsExactly(a);
  }

  @Test
  void renewKeepsOnlyLeasesTheHolderOwns() {
    redlock.acquire(List.of(a), "w1", Duration.ofSeconds(10));
    redlock.acquire(List.of(b), "w2", Duration.ofSeconds(10));

    assertThat(redlock.renew(List.of(a, b), "w1", Duration.ofSeconds(10))).containsExactly(a);
  }

  @Test
  void renewOrAcquireKeepsItsOwnTakesTheFreeAndLeavesAnothersAlone() {
    UUID free = UUID.randomUUID();
    redlock.acquire(List.of(a), "w1", Duration.ofSeconds(10));
    redlock.acquire(List.of(b), "w2", Duration.ofSeconds(10));

    assertThat(redlock.renewOrAcquire(List.of(a, b, free), "w1", Duration.ofSeconds(10)))
        .containsExactlyInAnyOrder(a, free);
    assertThat(redlock.renew(List.of(b), "w2", Duration.ofSeconds(10))).containsExactly(b);
    assertThat(redlock.renew(List.of(free), "w1", Duration.ofSeconds(10))).containsExactly(free);
  }

  @Test
  void aMinorityOfNodesDownDoesNotStopLeasing() {
    servers.get(2).close();

    assertThat(redlock.acquire(List.of(a), "w1", Duration.ofSeconds(10))).containsExactly(a);
    assertThat(redlock.acquire(List.of(a), "w2", Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void aMajorityDownMeansNoLease() {
    servers.get(1).close();
    servers.get(2).close();

    assertThat(redlock.acquire(List.of(a), "w1", Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void manyLeasesAtOnceKeepTheirOwnAnswers() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      ids.add(JobId.forScheduledTime(Instant.now()));
    }
    List<UUID> taken = ids.subList(0, 100);
    redlock.acquire(taken, "w2", Duration.ofSeconds(10));

    Set<UUID> mine = redlock.acquire(ids, "w1", Duration.ofSeconds(10));

    assertThat(mine).hasSize(400).doesNotContainAnyElementsOf(taken);
    assertThat(redlock.heldAmong(ids)).hasSize(500);
    assertThat(redlock.renew(ids, "w1", Duration.ofSeconds(10))).isEqualTo(mine);
    redlock.release(ids, "w1");
    assertThat(redlock.heldAmong(ids)).containsExactlyInAnyOrderElementsOf(taken);
  }

  @Test
  void renewAndReleaseWorkAfterRedisForgetsItsScripts() {
    redlock.acquire(List.of(a, b), "w1", Duration.ofSeconds(10));
    clients.forEach(
        c -> {
          try (var connection = c.connect()) {
            connection.sync().scriptFlush();
          }
        });

    assertThat(redlock.renew(List.of(a, b), "w1", Duration.ofSeconds(10)))
        .containsExactlyInAnyOrder(a, b);
    clients.forEach(
        c -> {
          try (var connection = c.connect()) {
            connection.sync().scriptFlush();
          }
        });
    redlock.release(List.of(a), "w1");

    assertThat(redlock.isHeld(a)).isFalse();
    assertThat(redlock.isHeld(b)).isTrue();
  }
}
