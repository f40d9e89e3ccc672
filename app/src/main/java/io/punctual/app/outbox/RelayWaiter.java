package io.punctual.app.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's wait between passes: {@code pollInterval}, cut short by a notification on {@code
 * punctual_outbox} (sent at the commit of each enqueue) when listening. Listening holds one
 * connection of the pool; when it fails, the wait is a plain sleep until a new one listens.
 */
final class RelayWaiter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RelayWaiter.class);

  private final DataSource dataSource;
  private final OutboxRelaySettings settings;
  private Connection listening;

  RelayWaiter(DataSource dataSource, OutboxRelaySettings settings) {
    this.dataSource = dataSource;
    this.settings = settings;
  }

  /** Waits at most {@code pollInterval}; on the loop's thread only. */
  void await() throws InterruptedException {
    if (settings.listen()) {
      try {
        PGConnection pg = listener();
        pg.getNotifications((int) settings.pollInterval().toMillis());
        return;
      } catch (SQLException e) {
        LOG.warn("outbox relay cannot listen, polling meanwhile: {}", e.toString());
        close();
      }
    }
    Thread.sleep(settings.pollInterval().toMillis());
  }

  private PGConnection listener() throws SQLException {
    if (listening == null) {
      Connection c = dataSource.getConnection();
      try {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + PunctualOutbox.CHANNEL);
        }
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      listening = c;
    }
    return listening.unwrap(PGConnection.class);
  }

  /** Ends the wait under way (its thread is interrupted; a wait on the socket ends at its poll). */
  static void wake(Thread loop) {
    loop.interrupt();
  }

  @Override
  public void close() {
    if (listening != null) {
      try {
        listening.close();
      } catch (SQLException e) {
        LOG.debug("closing the outbox listener: {}", e.toString());
      }
      listening = null;
    }
  }
}
