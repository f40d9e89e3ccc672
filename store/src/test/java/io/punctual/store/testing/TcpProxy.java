package io.punctual.store.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port in front of a server, for tests that cut a process off from it
 * while the server itself (and everyone else connected to it directly) carries on:
 *
 * <ul>
 *   <li>{@link #refuse()}: every proxied connection is closed and new ones are closed at once (the
 *       server looks down: clients fail fast);
 *   <li>{@link #stall()}: connections stay open but no byte goes through in either direction (a
 *       network partition: clients hang until their own timeouts, if they have any);
 *   <li>{@link #restore()}: bytes flow again (stalled connections carry on where they stopped).
 * </ul>
 */
public final class TcpProxy implements AutoCloseable {
  private enum Mode {
    OPEN,
    STALLED,
    REFUSING
  }

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object gate = new Object();
  private volatile Mode mode = Mode.OPEN;
  private volatile boolean closed;

  private TcpProxy(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
  }

  /** A proxy on a free loopback port forwarding to {@code host:port}. */
  public static TcpProxy start(String host, int port) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      TcpProxy proxy = new TcpProxy(server, new InetSocketAddress(host, port));
      Thread.ofVirtual().name("tcp-proxy-accept").start(proxy::acceptLoop);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Closes every proxied connection and refuses new ones until {@link #restore()}. */
  public void refuse() {
    mode = Mode.REFUSING;
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  /** Holds every byte in either direction until {@link #restore()}; connections stay open. */
  public void stall() {
    mode = Mode.STALLED;
  }

  /** Forwards again. */
  public void restore() {
    synchronized (gate) {
      mode = Mode.OPEN;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (mode == Mode.REFUSING) {
        closeQuietly(client);
        continue;
      }
      Thread.ofVirtual().start(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    try {
      upstream.connect(target, 2_000);
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(upstream);
      return;
    }
    sockets.add(client);
    sockets.add(upstream);
    if (mode == Mode.REFUSING) {
      refuse();
      return;
    }
    Thread.ofVirtual().start(() -> pump(client, upstream));
    Thread.ofVirtual().start(() -> pump(upstream, client));
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        awaitOpen();
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // either side closed, or refuse() cut the connection
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  private void awaitOpen() throws InterruptedException, IOException {
    synchronized (gate) {
      while (mode == Mode.STALLED && !closed) {
        gate.wait(100);
      }
    }
    if (mode == Mode.REFUSING || closed) {
      throw new IOException("proxy refusing");
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    restore();
    try {
      server.close();
    } catch (IOException ignored) {
      // already closed
    }
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }
}
