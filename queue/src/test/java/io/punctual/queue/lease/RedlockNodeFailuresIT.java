package io.punctual.queue.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.model.JobId;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.queue.testing.RedisNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redlock over 3 and 5 independent redis-server processes, with the failures it is meant to
 * survive: a node killed, a node restarted empty, a clock jump on one node, a node answering late,
 * and a lost quorum.
 */
class RedlockNodeFailuresIT {
  private static final Duration LONG = Duration.ofSeconds(30);

  private final RedisKeys keys = new RedisKeys("lock-nodes-" + UUID.randomUUID());
  private final List<RedisConnector> clients = new ArrayList<>();
  private final List<RedisConnection> connections = new ArrayList<>();
  private final UUID job = JobId.forScheduledTime(Instant.now());
  private RedisNodes nodes;

  private void start(int n) {
    nodes = RedisNodes.start(n);
    for (String url : nodes.urls()) {
      RedisConnector client = RedisConnector.standalone(url);
      clients.add(client);
      connections.add(client.connect());
    }
  }

  @AfterEach
  void stop() {
    clients.forEach(RedisConnector::close);
    if (nodes != null) {
      nodes.close();
    }
  }

  private int quorum() {
    return nodes.size() / 2 + 1;
  }

  /**
   * Marks every running node as having kept its data for {@code age} (as a node up for long would
   * have): what {@code node-age.lua} reads, written by the node's own clock.
   */
  private void agedBy(Duration age) {
    for (int i = 0; i < connections.size(); i++) {
      var redis = connections.get(i).sync();
      List<String> time = redis.time();
      long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
      redis.set(keys.leaseNodeDataSince(), Long.toString(nowMs - age.toMillis()));
    }
  }

  /** Waits until the client has reconnected to every node (after restarts). */
  private void connectedToAll() {
    await().atMost(Duration.ofSeconds(30)).until(() -> connections.stream().allMatch(this::pings));
  }

  /** Waits until the client has reconnected to node {@code i}. */
  private void connectedTo(int i) {
    await().atMost(Duration.ofSeconds(30)).until(() -> pings(connections.get(i)));
  }

  private boolean pings(RedisConnection c) {
    try {
      return "PONG".equals(c.sync().ping());
    } catch (RuntimeException e) {
      return false;
    }
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void aMinorityKilledTheMajorityStillLeasesToOneHolder(int n) {
    start(n);
    Redlock redlock = new Redlock(connections, keys, LONG);
    agedBy(LONG);
    for (int i = quorum(); i < n; i++) {
      nodes.kill(i); // SIGKILL
    }

    assertThat(redlock.acquire(List.of(job), "w1", LONG)).containsExactly(job);
    assertThat(redlock.acquire(List.of(job), "w2", LONG)).isEmpty();
    assertThat(redlock.renew(List.of(job), "w1", LONG)).containsExactly(job);
    assertThat(redlock.renew(List.of(job), "w2", LONG)).isEmpty();
    assertThat(redlock.isHeld(job)).isTrue();

    redlock.release(List.of(job), "w1");
    assertThat(redlock.isHeld(job)).isFalse();
    assertThat(redlock.acquire(List.of(job), "w2", LONG)).containsExactly(job);
  }

  /**
   * The case Redlock's delayed restart is for: a lease held by a bare majority (the other nodes
   * were down when it was taken), then one of that majority restarts empty. Without the delay the
   * restarted node and the ones that came back form a majority for a second holder.
   */
  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void aNodeRestartedEmptyGrantsNoSecondHolderWhileItWaitsOutTheDelay(int n) {
    start(n);
    Redlock redlock = new Redlock(connections, keys, LONG);
    agedBy(LONG);
    int q = quorum();
    for (int i = q; i < n; i++) {
      nodes.kill(i);
    }
    assertThat(redlock.acquire(List.of(job), "w1", LONG)).containsExactly(job);

    nodes.restartEmpty(q - 1); // w1's lease now only on q - 1 nodes
    for (int i = q; i < n; i++) {
      nodes.startAgain(i);
    }
    connectedToAll();

    assertThat(redlock.acquire(List.of(job), "w2", LONG)).isEmpty();
    assertThat(redlock.nodesWaitingOutRestart()).isEqualTo(n - q + 1);
    assertThat(redlock.renew(List.of(job), "w1", LONG)).isEmpty(); // q - 1 copies: not a majority
    // The refused attempt left nothing behind on the restarted nodes.
    for (int i = q - 1; i < n; i++) {
      assertThat(connections.get(i).sync().exists(keys.lease(job))).isZero();
    }

    // Without the delay the same nodes grant the lease w1 still holds on q - 1 nodes: a double
    // grant, which only the attempt-number fence in PostgreSQL makes harmless.
    Redlock undelayed = new Redlock(connections, keys);
    assertThat(undelayed.acquire(List.of(job), "w3", LONG)).containsExactly(job);
    for (int i = 0; i < q - 1; i++) {
      assertThat(connections.get(i).sync().get(keys.lease(job))).isEqualTo("w1");
    }
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void aRestartedNodeTakesPartAgainOnceTheDelayHasPassedOnItsClock(int n) {
    start(n);
    Duration delay = Duration.ofSeconds(1);
    Redlock redlock = new Redlock(connections, keys, delay);
    agedBy(delay);
    int q = quorum();
    for (int i = q; i < n; i++) {
      nodes.kill(i); // the rest down: every lease needs node q - 1
    }
    nodes.restartEmpty(q - 1);
    connectedTo(q - 1);
    long restarted = System.nanoTime();

    assertThat(redlock.acquire(List.of(job), "w1", delay)).isEmpty();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> redlock.acquire(List.of(job), "w1", delay).contains(job));

    assertThat(Duration.ofNanos(System.nanoTime() - restarted)).isGreaterThanOrEqualTo(delay);
    assertThat(redlock.nodesWaitingOutRestart()).isZero();
  }

  /**
   * A clock jumping forward on one node expires its copy of the lease early (Redis expires by the
   * server's clock): made here by expiring that copy at once. The majority still holds the lease.
   */
  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void aClockJumpOnOneNodeLosesOnlyItsCopy(int n) {
    start(n);
    Redlock redlock = new Redlock(connections, keys, LONG);
    agedBy(LONG);
    assertThat(redlock.acquire(List.of(job), "w1", LONG)).containsExactly(job);

    var jumped = connections.get(0).sync();
    jumped.pexpire(keys.lease(job), 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> jumped.exists(keys.lease(job)) == 0);

    assertThat(redlock.isHeld(job)).isTrue();
    assertThat(redlock.acquire(List.of(job), "w2", LONG)).isEmpty();
    assertThat(jumped.exists(keys.lease(job))).isZero(); // w2's lone copy was undone
    assertThat(redlock.renew(List.of(job), "w1", LONG)).containsExactly(job);
    assertThat(connections.get(1).sync().pttl(keys.lease(job)))
        .isGreaterThan(LONG.toMillis() - 5_000);
  }

  /**
   * A node that answers late (paused, or slow) uses up the lease's validity: granted by every node
   * but after {@code ttl} minus the drift allowance, the lease is not held and is undone.
   */
  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void aLeaseGrantedAfterItsValidityIsNotHeldAndIsUndone(int n) {
    start(n);
    Redlock redlock = new Redlock(connections, keys, LONG);
    agedBy(LONG);
    UUID other = JobId.forScheduledTime(Instant.now());

    for (int i = 0; i < n; i++) {
      connections.get(i).sync().clientPause(400); // every node answers 400 ms late
    }
    assertThat(redlock.acquire(List.of(job), "w1", Duration.ofMillis(300))).isEmpty();
    for (int i = 0; i < n; i++) {
      connections.get(i).sync().clientPause(400);
    }
    assertThat(redlock.acquire(List.of(other), "w1", Duration.ofSeconds(5))).containsExactly(other);

    assertThat(redlock.isHeld(job)).isFalse();
    assertThat(redlock.acquire(List.of(job), "w2", LONG)).containsExactly(job);
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void withTheQuorumLostNothingIsLeasedAndNothingThrows(int n) {
    start(n);
    Redlock redlock = new Redlock(connections, keys, LONG);
    agedBy(LONG);
    assertThat(redlock.acquire(List.of(job), "w1", LONG)).containsExactly(job);
    for (int i = 0; i < quorum(); i++) {
      nodes.kill(i);
    }
    UUID other = JobId.forScheduledTime(Instant.now());

    long started = System.nanoTime();
    assertThat(redlock.acquire(List.of(other), "w1", LONG)).isEmpty();
    assertThat(redlock.renew(List.of(job), "w1", LONG)).isEmpty();
    assertThat(redlock.heldAmong(Set.of(job, other))).isEmpty();
    redlock.release(List.of(job), "w1");
    // Refused at once (the client rejects commands to a node it is not connected to).
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
  }
}
