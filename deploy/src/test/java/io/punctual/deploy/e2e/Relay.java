package io.punctual.deploy.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A byte relay between two kinds of endpoint, {@code tcp:host:port} and {@code unix:/path}, using
 * the JDK alone (so it runs from the test classes in any network namespace): a Unix socket is a
 * file, which every namespace sees, so a relay inside a namespace lets the test JVM, which stays in
 * the host's namespace, reach a server in there (and a server in there reach the test JVM's side
 * effect server) without any address, route or interface being added to the host's network.
 *
 * <p>With a control file, the relay is also a degraded link: the file holds {@code "delayMs
 * jitterMs stallPercent"}; each chunk is held {@code delayMs ± jitterMs}, and one in {@code
 * 100/stallPercent} is held 200 ms more, what a lost TCP segment costs (Linux's smallest
 * retransmission timeout). It stands in for {@code tc netem} where the kernel has no netem.
 *
 * <p>{@code java -cp test-classes io.punctual.deploy.e2e.Relay LISTEN=CONNECT[@CONTROL] ...}
 */
public final class Relay implements AutoCloseable {
  private final ServerSocketChannel server;
  private final SocketAddress target;
  private final Path control;
  private volatile int[] degradation = {0, 0, 0};

  private Relay(ServerSocketChannel server, SocketAddress target, Path control) {
    this.server = server;
    this.target = target;
    this.control = control;
  }

  public static void main(String[] args) throws Exception {
    List<Relay> relays = new ArrayList<>();
    for (String arg : args) {
      String[] at = arg.split("@", 2);
      String[] ends = at[0].split("=", 2);
      relays.add(start(ends[0], ends[1], at.length > 1 ? Path.of(at[1]) : null));
    }
    System.out.println("relay ready: " + String.join(" ", args));
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }

  /** Starts relaying {@code listen} to {@code connect} on virtual threads. */
  public static Relay start(String listen, String connect, Path control) {
    try {
      SocketAddress listenAddress = address(listen);
      ServerSocketChannel server =
          listenAddress instanceof UnixDomainSocketAddress unix
              ? ServerSocketChannel.open(StandardProtocolFamily.UNIX)
              : ServerSocketChannel.open();
      if (listenAddress instanceof UnixDomainSocketAddress unix) {
        Files.deleteIfExists(unix.getPath());
      }
      server.bind(listenAddress, 256);
      Relay relay = new Relay(server, address(connect), control);
      Thread.ofVirtual().start(relay::acceptLoop);
      if (control != null) {
        Thread.ofVirtual().start(relay::watchControl);
      }
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException("relay " + listen + " -> " + connect, e);
    }
  }

  /** The TCP port it listens on (for {@code tcp:127.0.0.1:0}). */
  public int port() {
    try {
      return ((InetSocketAddress) server.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SocketAddress address(String endpoint) {
    if (endpoint.startsWith("unix:")) {
      return UnixDomainSocketAddress.of(endpoint.substring(5));
    }
    if (endpoint.startsWith("tcp:")) {
      String hostPort = endpoint.substring(4);
      int colon = hostPort.lastIndexOf(':');
      return new InetSocketAddress(
          hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
    throw new IllegalArgumentException("endpoint must be tcp:host:port or unix:/path: " + endpoint);
  }

  private void acceptLoop() {
    while (server.isOpen()) {
      try {
        SocketChannel client = server.accept();
        Thread.ofVirtual().start(() -> connect(client));
      } catch (IOException e) {
        if (server.isOpen()) {
          System.err.println("relay accept failed: " + e);
        }
      }
    }
  }

  private void connect(SocketChannel client) {
    SocketChannel upstream;
    try {
      upstream =
          target instanceof UnixDomainSocketAddress
              ? SocketChannel.open(StandardProtocolFamily.UNIX)
              : SocketChannel.open();
      upstream.connect(target);
    } catch (IOException e) {
      closeQuietly(client);
      return;
    }
    AtomicInteger ended = new AtomicInteger();
    Thread.ofVirtual().start(() -> pump(client, upstream, ended));
    Thread.ofVirtual().start(() -> pump(upstream, client, ended));
  }

  /** Copies one direction; the second direction to end closes both channels. */
  private void pump(SocketChannel from, SocketChannel to, AtomicInteger ended) {
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    try {
      while (from.read(buffer) >= 0) {
        hold();
        buffer.flip();
        while (buffer.hasRemaining()) {
          to.write(buffer);
        }
        buffer.clear();
      }
      to.shutdownOutput();
      if (ended.incrementAndGet() == 2) {
        closeQuietly(from);
        closeQuietly(to);
      }
    } catch (IOException | InterruptedException e) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /** The degraded link's delay of one chunk. */
  private void hold() throws InterruptedException {
    int[] d = degradation;
    long ms = d[0];
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (d[1] > 0) {
      ms += random.nextLong(-d[1], d[1] + 1);
    }
    if (d[2] > 0 && random.nextInt(100) < d[2]) {
      ms += 200;
    }
    if (ms > 0) {
      Thread.sleep(ms);
    }
  }

  private void watchControl() {
    while (server.isOpen()) {
      try {
        if (Files.exists(control)) {
          String[] parts = Files.readString(control, StandardCharsets.UTF_8).trim().split("\\s+");
          int[] next = {0, 0, 0};
          for (int i = 0; i < Math.min(3, parts.length); i++) {
            next[i] = parts[i].isEmpty() ? 0 : Integer.parseInt(parts[i]);
          }
          degradation = next;
        }
        Thread.sleep(100);
      } catch (IOException | RuntimeException e) {
        System.err.println("relay control file unreadable: " + e);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
