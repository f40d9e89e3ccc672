package io.punctual.store.testing;

import io.punctual.store.Database;
import io.punctual.store.JobQueries;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobTransitions;
import io.punctual.store.PartitionManager;
import io.punctual.store.config.PostgresSettings;
import java.time.Clock;

/**
 * The PostgreSQL half of a test's servers: a migrated database of its own and the job stores on it.
 * Close it at the end of the test (it drops the database).
 */
public final class StoreStack implements AutoCloseable {
  public final PostgresSettings postgres;
  public final Database database;
  public final PartitionManager partitions;
  public final JobSubmissions submissions;
  public final JobTransitions transitions;
  public final JobQueries queries;
  public final Clock clock;

  public StoreStack(Clock clock) {
    this.clock = clock;
    this.postgres = TestStores.get().newDatabase();
    this.database = Database.connect(postgres, "test");
    this.partitions = new PartitionManager(database.jdbi(), clock, 3);
    partitions.ensureAhead();
    this.submissions = new JobSubmissions(database.jdbi(), partitions, clock);
    this.transitions = new JobTransitions(database.jdbi(), submissions, clock);
    this.queries = new JobQueries(database.jdbi());
  }

  public StoreStack() {
    this(Clock.systemUTC());
  }

  /** Closes the pool and drops this test's database. */
  @Override
  public void close() {
    database.close();
    TestStores.get().dropDatabase(postgres);
  }
}
