package io.punctual.deploy.e2e;

import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * PostgreSQL 18 and Redis 6.2, the same binaries as the embedded servers (zonky's,
 * embedded-redis's), started as processes inside a {@link NetworkLab} host's namespace; and the
 * {@link Relay}s that connect the test JVM to them through Unix sockets.
 *
 * <p>PostgreSQL listens on {@code 127.0.0.1:5433} in its namespace; a relay there listens on the
 * namespace's address, port 5432, where the other hosts connect: the degraded link's delay (its
 * control file) applies to them, not to the checker, which comes in by a Unix socket relay.
 */
final class NamespacedServers {
  static final int PG_PORT = 5432;
  static final int REDIS_PORT = 6379;
  private static final int PG_INNER_PORT = 5433;

  private NamespacedServers() {}

  /**
   * Makes a data directory with a {@code punctual} database (zonky's initdb, in the host's
   * namespace on a free loopback port, then stopped) and returns the directory of its binaries.
   */
  static Path initPostgres(Path data) {
    try (EmbeddedPostgresServer pg =
        EmbeddedPostgresServer.start(data, false, Map.of(), FreePorts.pick())) {
      pg.createDatabaseIfMissing("punctual");
      long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
      Optional<String> postgres = ProcessHandle.of(pid).flatMap(p -> p.info().command());
      return Path.of(
              postgres.orElseThrow(
                  () -> new IllegalStateException("no command for the postmaster, pid " + pid)))
          .getParent();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts postgres in {@code host}'s namespace ({@code unshare -U}: PostgreSQL refuses to run as
   * root, zonky does the same), with the relays: {@code host:5432} for the other hosts (delayed by
   * {@code control}) and {@code unix:<socket>} for the test JVM.
   */
  static List<PunctualProcess> startPostgres(
      NetworkLab lab, String host, Path bin, Path data, Path dir, Path socket, Path control) {
    List<String> command =
        List.of(
            "unshare",
            "-U",
            bin.resolve("postgres").toString(),
            "-D",
            data.toString(),
            "-p",
            "" + PG_INNER_PORT,
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "unix_socket_directories=" + dir,
            "-c",
            "max_connections=200",
            "-c",
            "fsync=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "timezone=UTC");
    PunctualProcess pg =
        PunctualProcess.startCommand(
            dir.resolve("postgres.log"), Map.of(), lab.exec(host, command));
    PunctualProcess relay =
        relay(
            lab,
            host,
            dir.resolve("relay-" + host + ".log"),
            "tcp:"
                + lab.address(host)
                + ":"
                + PG_PORT
                + "=tcp:127.0.0.1:"
                + PG_INNER_PORT
                + "@"
                + control,
            "unix:" + socket + "=tcp:127.0.0.1:" + PG_INNER_PORT);
    return List.of(pg, relay);
  }

  /**
   * Starts postgres in {@code host}'s namespace listening on the host's address and on loopback,
   * port 5432, with no relay in between (the failover test), and a Unix socket relay for the test
   * JVM. {@code settings} are further {@code -c} settings ({@code synchronous_standby_names}...).
   */
  static List<PunctualProcess> startPostgresDirect(
      NetworkLab lab,
      String host,
      Path bin,
      Path data,
      Path dir,
      Path socket,
      Map<String, String> settings) {
    Path sockets = dir.resolve("sockets-" + host);
    try {
      Files.createDirectories(sockets);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                "unshare",
                "-U",
                bin.resolve("postgres").toString(),
                "-D",
                data.toString(),
                "-p",
                "" + PG_PORT,
                "-c",
                "listen_addresses=127.0.0.1," + lab.address(host),
                "-c",
                "unix_socket_directories=" + sockets,
                "-c",
                "max_connections=200",
                "-c",
                "fsync=off",
                "-c",
                "timezone=UTC"));
    settings.forEach(
        (k, v) -> {
          command.add("-c");
          command.add(k + "=" + v);
        });
    PunctualProcess pg =
        PunctualProcess.startCommand(
            dir.resolve("postgres-" + host + ".log"), Map.of(), lab.exec(host, command));
    PunctualProcess relay =
        relay(
            lab,
            host,
            dir.resolve("relay-" + host + ".log"),
            "unix:" + socket + "=tcp:127.0.0.1:" + PG_PORT);
    return List.of(pg, relay);
  }

  /**
   * Lets every host of the lab connect, replication connections too ({@code pg_hba.conf}); zonky's
   * initdb trusts loopback only.
   */
  static void trustLab(Path data) {
    try {
      Files.writeString(
          data.resolve("pg_hba.conf"),
          "host all all 10.231.0.0/16 trust\nhost replication all 10.231.0.0/16 trust\n",
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A standby of a cleanly stopped primary: a copy of its data directory (a cold base backup; the
   * embedded binaries have no pg_basebackup) with {@code standby.signal}.
   */
  static void copyAsStandby(Path primary, Path standby) {
    try (var paths = Files.walk(primary)) {
      for (Path from : paths.toList()) {
        Path to = standby.resolve(primary.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else if (!from.getFileName().toString().equals("postmaster.pid")) {
          Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
      Files.setPosixFilePermissions(standby, PosixFilePermissions.fromString("rwx------"));
      Files.writeString(standby.resolve("standby.signal"), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts redis-server 6.2 (embedded-redis's binary) in {@code host}'s namespace. */
  static PunctualProcess startRedis(NetworkLab lab, String host, Path dir) {
    Path binary = dir.resolve("redis-server");
    try (InputStream in =
        NamespacedServers.class.getResourceAsStream("/redis-server-6.2.6-v5-linux-amd64")) {
      if (in == null) {
        throw new IllegalStateException(
            "embedded-redis's linux-amd64 binary is not on the class path");
      }
      Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwx------"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command =
        List.of(
            binary.toString(),
            "--port",
            "" + REDIS_PORT,
            "--bind",
            "0.0.0.0",
            "--protected-mode",
            "no",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString());
    PunctualProcess redis =
        PunctualProcess.startCommand(dir.resolve("redis.log"), Map.of(), lab.exec(host, command));
    redis.awaitOutput("(Ready to accept connections)", Duration.ofSeconds(30));
    return redis;
  }

  /**
   * {@code ip netns exec <ns> java -jar punctual.jar <role> <config>}: a role in {@code host}'s
   * namespace, on the lab's PostgreSQL ({@code databaseUrl}) and Redis (host {@code redis}), its
   * callbacks allowed to reach the lab's addresses; logging to {@code dir/<name>.log}.
   */
  static PunctualProcess startRole(
      NetworkLab lab,
      Path dir,
      String databaseUrl,
      String host,
      String name,
      Map<String, String> extra,
      String role,
      Path config) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("PUNCTUAL_DATABASE_URL", databaseUrl);
    env.put("PUNCTUAL_REDIS_URL", "redis://" + lab.address("redis") + ":" + REDIS_PORT);
    env.put("PUNCTUAL_HTTP_ALLOW", "10.231.0.0/16");
    env.putAll(extra);
    return PunctualProcess.startCommand(
        dir.resolve(name + ".log"),
        env,
        lab.exec(host, PunctualProcess.javaCommand(role, config.toString())));
  }

  /** Copies the logs of {@code dir} to {@code target}, then deletes {@code dir}. */
  static void keepLogs(Path dir, Path target) {
    try {
      Files.createDirectories(target);
      try (var files = Files.list(dir)) {
        for (Path log : files.filter(p -> p.toString().endsWith(".log")).toList()) {
          Files.copy(log, target.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      System.out.println("could not keep the logs of " + dir + ": " + e);
    }
  }

  /** A {@link Relay} process in {@code host}'s namespace, ready when this returns. */
  static PunctualProcess relay(NetworkLab lab, String host, Path log, String... mappings) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx48m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp"));
    command.add(testClasses());
    command.add(Relay.class.getName());
    command.addAll(List.of(mappings));
    PunctualProcess relay = PunctualProcess.startCommand(log, Map.of(), lab.exec(host, command));
    relay.awaitOutput("(relay ready)", Duration.ofSeconds(30));
    return relay;
  }

  private static String testClasses() {
    try {
      return Path.of(Relay.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
