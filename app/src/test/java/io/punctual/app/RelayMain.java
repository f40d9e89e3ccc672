package io.punctual.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.OutboxRelaySettings;
import io.punctual.client.PunctualClient;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * An application's outbox relay alone in a JVM of its own, so that a test can kill it ({@code kill
 * -9}) in the middle of its work. Prints {@code relay started}. Arguments: the application's
 * PostgreSQL URL, user, password, the API's URL, its key, the relay's lease in milliseconds, and
 * optionally {@code n}: the JVM halts ({@link #HALTED}) as its relay is about to delete the n-th
 * forwarded row, so that the API has stored jobs whose rows are still there (the crash the
 * idempotency key is for).
 */
public final class RelayMain {
  /** The exit status of a relay halted before a delete. */
  static final int HALTED = 99;

  private RelayMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername(args[1]);
    config.setPassword(args[2]);
    config.setMaximumPoolSize(10);
    HikariDataSource hikari = new HikariDataSource(config);
    DataSource pool =
        args.length > 6 ? haltingBeforeDelete(hikari, Integer.parseInt(args[6])) : hikari;
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

  /** {@code pool}, whose connections halt the JVM as the {@code n}-th outbox row delete starts. */
  private static DataSource haltingBeforeDelete(DataSource pool, int n) {
    AtomicInteger deletes = new AtomicInteger();
    InvocationHandler connections =
        (proxy, method, args) -> {
          if (!method.getName().equals("getConnection")) {
            return invoke(pool, method, args);
          }
          Connection c = (Connection) invoke(pool, method, args);
          return Proxy.newProxyInstance(
              RelayMain.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (p, m, a) -> {
                if (m.getName().equals("prepareStatement")
                    && a[0].toString().startsWith("DELETE FROM punctual_outbox")
                    && deletes.incrementAndGet() >= n) {
                  System.out.flush();
                  Runtime.getRuntime().halt(HALTED);
                }
                return invoke(c, m, a);
              });
        };
    return (DataSource)
        Proxy.newProxyInstance(
            RelayMain.class.getClassLoader(), new Class<?>[] {DataSource.class}, connections);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
