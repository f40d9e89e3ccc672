package io.punctual.deploy.dev;

import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL 18 and Redis {@code punctual dev} runs itself, on free ports, with their data in
 * {@code <dataDir>/postgres} and {@code <dataDir>/redis} so it survives restarts. PostgreSQL runs
 * durably (fsync and synchronous_commit on).
 */
public final class EmbeddedStores implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedStores.class);

  public static final String DATABASE = "punctual";
  public static final String USER = "postgres";
  static final String POSTGRES_DIR = "postgres";
  static final String REDIS_DIR = "redis";
  static final String REDIS_PID = "punctual-redis.pid";

  private final Path dataDir;
  private final DataDirLock lock;
  private final EmbeddedPostgresServer postgres;
  private final EmbeddedRedisServer redis;

  private EmbeddedStores(
      Path dataDir, DataDirLock lock, EmbeddedPostgresServer postgres, EmbeddedRedisServer redis) {
    this.dataDir = dataDir;
    this.lock = lock;
    this.postgres = postgres;
    this.redis = redis;
  }

  /**
   * Locks {@code dataDir}, stops servers an earlier run left behind, wipes the data first if {@code
   * fresh}, then starts PostgreSQL (creating database {@value #DATABASE} if missing) and Redis.
   */
  public static EmbeddedStores start(Path dataDir, boolean fresh) {
    DataDirLock lock = DataDirLock.acquire(dataDir);
    EmbeddedPostgresServer postgres = null;
    try {
      Path postgresDir = dataDir.resolve(POSTGRES_DIR);
      Path redisDir = dataDir.resolve(REDIS_DIR);
      LeftoverProcesses.stopPostgres(postgresDir);
      LeftoverProcesses.stopRedis(redisDir.resolve(REDIS_PID));
      if (fresh) {
        deleteRecursively(postgresDir);
        deleteRecursively(redisDir);
        log.info("--fresh: wiped {} and {}", postgresDir, redisDir);
      }
      log.info("starting embedded PostgreSQL in {}", postgresDir);
      postgres = EmbeddedPostgresServer.start(postgresDir, true);
      postgres.createDatabaseIfMissing(DATABASE);
      log.info("starting embedded Redis in {}", redisDir);
      EmbeddedRedisServer redis = EmbeddedRedisServer.start(redisDir);
      try {
        writePid(redisDir.resolve(REDIS_PID), redisPid(redis.port()));
      } catch (IOException | RuntimeException e) {
        log.warn("could not record the Redis pid: {}", e.toString());
      }
      return new EmbeddedStores(dataDir, lock, postgres, redis);
    } catch (RuntimeException | Error e) {
      if (postgres != null) {
        closeQuietly(postgres);
      }
      closeQuietly(lock);
      throw e;
    }
  }

  public String jdbcUrl() {
    return postgres.jdbcUrl(DATABASE);
  }

  public String redisUrl() {
    return redis.url();
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Stops Redis, then PostgreSQL, then releases the data directory. */
  @Override
  public void close() {
    try {
      closeQuietly(redis);
      try {
        Files.deleteIfExists(dataDir.resolve(REDIS_DIR).resolve(REDIS_PID));
      } catch (IOException e) {
        log.debug("could not delete the Redis pid file", e);
      }
      closeQuietly(postgres);
    } finally {
      closeQuietly(lock);
    }
  }

  /** Asks Redis its own pid ({@code INFO server}, field {@code process_id}). */
  static long redisPid(int port) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String header = readLine(in);
      if (!header.startsWith("$")) {
        throw new IOException("unexpected reply to INFO: " + header);
      }
      byte[] body = in.readNBytes(Integer.parseInt(header.substring(1)));
      for (String line : new String(body, StandardCharsets.UTF_8).split("\r\n", -1)) {
        if (line.startsWith("process_id:")) {
          return Long.parseLong(line.substring("process_id:".length()).trim());
        }
      }
      throw new IOException("INFO server has no process_id");
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  private static void writePid(Path file, long pid) throws IOException {
    Files.writeString(file, pid + "\n", StandardCharsets.UTF_8);
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot wipe " + dir, e);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      log.warn("closing {} failed: {}", closeable.getClass().getSimpleName(), e.toString());
    }
  }
}
