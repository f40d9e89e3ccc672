package io.punctual.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  /**
   * A picked port is one a server can bind, and below the ephemeral range, so that no outgoing
   * connection takes it as its local port before the server binds it.
   */
  @Test
  void aPickedPortIsBindableAndNoOutgoingConnectionsLocalPort() throws IOException {
    int ephemeralFrom = FreePorts.ephemeralFrom();
    for (int i = 0; i < 20; i++) {
      int port = FreePorts.pick();
      if (ephemeralFrom > 10_000) {
        assertThat(port).isBetween(10_000, ephemeralFrom - 1);
      }
      try (ServerSocket server = new ServerSocket()) {
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        assertThat(server.getLocalPort()).isEqualTo(port);
      }
    }
  }

  /** A port in use is not picked again while its server holds it. */
  @Test
  void aPortInUseIsNotPicked() throws IOException {
    int port = FreePorts.pick();
    try (ServerSocket held = new ServerSocket()) {
      held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      for (int i = 0; i < 200; i++) {
        assertThat(FreePorts.pick()).isNotEqualTo(port);
      }
    }
  }
}
