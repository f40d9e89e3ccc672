package io.punctual.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.configuration.JobRunrConfiguration.JobRunrConfigurationResult;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;

/**
 * The second peer: JobRunr with its PostgreSQL storage (in its own database on the benchmark's
 * server) and its background job server with its defaults (worker count, 15 s poll interval). Like
 * Punctual it keeps every job, SUCCEEDED, after it ran. JobRunr is configured once per JVM (its
 * configuration is global); each round empties its jobs table first.
 */
public final class JobRunrPeer {
  private JobRunrPeer() {}

  private static final LongAdder DONE = new LongAdder();
  private static HikariDataSource dataSource;
  private static JobRunrConfigurationResult jobRunr;

  /** The job: does nothing but count itself. JobRunr calls it by reflection. */
  public static void noop() {
    DONE.increment();
  }

  private static synchronized JobRunrConfigurationResult configure(String url) {
    if (jobRunr == null) {
      dataSource = BenchSupport.dataSource(url, 20);
      jobRunr =
          JobRunr.configure()
              .useStorageProvider(new PostgresStorageProvider(dataSource))
              .useBackgroundJobServer(
                  BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration(),
                  false)
              .initialize();
    }
    return jobRunr;
  }

  /**
   * Stores {@code jobs} enqueued no-op jobs, then starts the background job server and returns
   * executions per second from its start until the last job ran.
   */
  static double throughput(String url, int jobs) throws Exception {
    JobRunrConfigurationResult result = configure(url);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE jobrunr_jobs");
    }
    DONE.reset();
    result.getJobScheduler().enqueue(IntStream.range(0, jobs).boxed(), i -> JobRunrPeer.noop());
    BackgroundJobServer server = result.getBackgroundJobServer();
    long started = System.nanoTime();
    server.start();
    try {
      BenchSupport.waitFor(() -> DONE.sum() >= jobs, Duration.ofMinutes(10));
      return jobs / ((System.nanoTime() - started) / 1e9);
    } finally {
      server.stop();
    }
  }
}
