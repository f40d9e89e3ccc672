package io.punctual.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import redis.embedded.RedisServer;

/**
 * A redis-server started by the program itself (the binary shipped in the embedded-redis jar), on a
 * free port. With a data directory it persists (append-only file) so queued jobs survive a restart;
 * Punctual would rebuild the queue from PostgreSQL anyway.
 */
public final class EmbeddedRedisServer implements AutoCloseable {
  private final RedisServer server;
  private final int port;

  private EmbeddedRedisServer(RedisServer server, int port) {
    this.server = server;
    this.port = port;
  }

  public static EmbeddedRedisServer start(Path dataDirectory) {
    return start(dataDirectory, FreePorts.pick());
  }

  /** On a given port (a restart on the port clients already know). */
  public static EmbeddedRedisServer start(Path dataDirectory, int port) {
    try {
      var builder = RedisServer.newRedisServer().port(port).bind("127.0.0.1");
      if (dataDirectory != null) {
        Files.createDirectories(dataDirectory);
        builder
            .setting("dir " + dataDirectory.toAbsolutePath())
            .setting("appendonly yes")
            .setting("appendfsync everysec")
            .setting("save \"\"");
      } else {
        builder.setting("save \"\"").setting("appendonly no");
      }
      RedisServer server = builder.build();
      server.start();
      return new EmbeddedRedisServer(server, port);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded Redis", e);
    }
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
