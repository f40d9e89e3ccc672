package io.punctual.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.client.JobRequest;
import io.punctual.queue.config.RedisSettings;
import java.sql.Connection;
import java.time.Clock;

/**
 * An application that dies between its commit and the enqueue: it writes one job in its own
 * transaction, commits, prints {@code committed <id>}, and then waits for its {@code kill -9}
 * without ever calling {@code enqueue()}. Arguments: PostgreSQL URL, user, password, Redis URL, key
 * prefix.
 */
public final class CommitThenHangMain {
  private CommitThenHangMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername(args[1]);
    config.setPassword(args[2]);
    config.setMaximumPoolSize(2);
    HikariDataSource pool = new HikariDataSource(config);
    PunctualJobs jobs =
        PunctualJobs.builder()
            .dataSource(pool)
            .redis(new RedisSettings(args[3], args[4]))
            .clock(Clock.systemUTC())
            .build();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      Submission s = jobs.submit(c, JobRequest.builder("invoice.send").build());
      c.commit();
      System.out.println("committed " + s.id());
      System.out.flush();
    }
    Thread.sleep(Long.MAX_VALUE); // killed here: enqueue() never runs
  }
}
