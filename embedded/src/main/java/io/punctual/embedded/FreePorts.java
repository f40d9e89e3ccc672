package io.punctual.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Scanner;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a free TCP port on the loopback interface for a server started later (never assumes 5432 or
 * 6379 are free), below the kernel's ephemeral range where it can tell that range. A port the
 * kernel hands out for {@code bind(0)} is also one it hands out as the local port of outgoing
 * connections: between the pick and the server's own bind, a connection to PostgreSQL or Redis
 * could take it, and the server would fail with "Address already in use" (seen in a fault suite's
 * reaper on a busy machine). Ports below that range are only ever taken by a bind.
 */
public final class FreePorts {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 10_000;
  private static final int TRIES = 200;

  private FreePorts() {}

  public static int pick() {
    int ephemeralFrom = ephemeralFrom();
    if (ephemeralFrom > LOWEST) {
      for (int i = 0; i < TRIES; i++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralFrom);
        if (free(port)) {
          return port;
        }
      }
    }
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first port of the kernel's ephemeral range, or 0 where it cannot be read (not Linux). */
  static int ephemeralFrom() {
    try {
      Scanner range = new Scanner(Files.readString(EPHEMERAL_RANGE));
      return range.nextInt();
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
