package io.punctual.queue.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection to the queue Redis, standalone or a Redis Cluster, seen through the command
 * interfaces both share ({@link RedisClusterCommands}, {@link RedisClusterAsyncCommands}). On a
 * cluster every command goes to the master of its key's slot (Lettuce follows MOVED and ASK
 * redirections and refreshes its view of the slots); a multi-key command or script must keep all
 * its keys in one slot, which {@link RedisKeys} ensures with hash tags.
 */
public final class RedisConnection implements AutoCloseable {
  private final StatefulConnection<String, String> stateful;
  private final RedisClusterCommands<String, String> sync;
  private final RedisClusterAsyncCommands<String, String> async;
  private final StatefulRedisClusterConnection<String, String> cluster;

  private RedisConnection(
      StatefulConnection<String, String> stateful,
      RedisClusterCommands<String, String> sync,
      RedisClusterAsyncCommands<String, String> async,
      StatefulRedisClusterConnection<String, String> cluster) {
    this.stateful = stateful;
    this.sync = sync;
    this.async = async;
    this.cluster = cluster;
  }

  /** A connection to one standalone Redis server. */
  public static RedisConnection of(StatefulRedisConnection<String, String> connection) {
    return new RedisConnection(connection, connection.sync(), connection.async(), null);
  }

  /** A connection to a Redis Cluster (commands routed by slot). */
  public static RedisConnection of(StatefulRedisClusterConnection<String, String> connection) {
    return new RedisConnection(connection, connection.sync(), connection.async(), connection);
  }

  public RedisClusterCommands<String, String> sync() {
    return sync;
  }

  public RedisClusterAsyncCommands<String, String> async() {
    return async;
  }

  /**
   * The connection commands are dispatched on (several in one write: {@link PipelinedCommands}).
   */
  public StatefulConnection<String, String> stateful() {
    return stateful;
  }

  public boolean isCluster() {
    return cluster != null;
  }

  /**
   * Which servers hold the data now: the server's {@code run_id} (new on every start), or on a
   * cluster the run_ids of every master, sorted. It changes when a server restarts (and may have
   * lost or reloaded older data) or when a replica is promoted in a failover (and may have lagged
   * its master): the promoter then rebuilds the queues from PostgreSQL.
   */
  public String serverIdentity() {
    if (cluster == null) {
      return runId(sync.info("server"));
    }
    List<String> ids = new ArrayList<>();
    for (RedisClusterNode node : cluster.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        ids.add(runId(cluster.getConnection(node.getNodeId()).sync().info("server")));
      }
    }
    ids.sort(null);
    return String.join(",", ids);
  }

  private static String runId(String info) {
    for (String line : info.split("\r?\n", -1)) {
      if (line.startsWith("run_id:")) {
        return line.substring("run_id:".length()).trim();
      }
    }
    throw new IllegalStateException("Redis INFO server has no run_id");
  }

  @Override
  public void close() {
    stateful.close();
  }
}
