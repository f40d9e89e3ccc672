package io.punctual.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.OutboxRelaySettings;
import io.punctual.client.PunctualClient;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;

/**
 * An application's outbox relay alone in a JVM of its own, so that a test can kill it ({@code kill
 * -9}) in the middle of its work. Prints {@code relay started}. Arguments: the application's
 * PostgreSQL URL, user, password, the API's URL, its key, the relay's lease in milliseconds.
 */
public final class RelayMain {
  private RelayMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername(args[1]);
    config.setPassword(args[2]);
    config.setMaximumPoolSize(10);
    HikariDataSource pool = new HikariDataSource(config);
    PunctualClient client = PunctualClient.create(URI.create(args[3])).withApiKey(args[4]);
    OutboxRelay relay =
        new OutboxRelay(
            pool,
            client,
            Clock.systemUTC(),
            OutboxRelaySettings.DEFAULTS.withLease(Duration.ofMillis(Long.parseLong(args[5]))));
    relay.start();
    System.out.println("relay started");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
