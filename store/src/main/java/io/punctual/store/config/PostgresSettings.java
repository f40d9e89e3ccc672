package io.punctual.store.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * Where PostgreSQL is and how to pool connections to it. Mutable bean so Dropwizard's YAML binding
 * and overrides work; every field has a default that works against a local server.
 */
public class PostgresSettings {
  /** JDBC URL. Env: {@code PUNCTUAL_DATABASE_URL}. */
  @JsonProperty public String url = "jdbc:postgresql://127.0.0.1:5432/punctual";

  @JsonProperty public String user = "postgres";
  @JsonProperty public String password = "";

  /** Connections per process. Workers batch, so a handful suffices. */
  @JsonProperty public int maxPoolSize = 10;

  @JsonProperty public Duration connectionTimeout = Duration.ofSeconds(5);

  /**
   * PostgreSQL ends a session of this process that sits inside a transaction doing nothing for this
   * long ({@code idle_in_transaction_session_timeout}). Punctual's transactions last milliseconds;
   * one left open is a process that was paused (GC, SIGSTOP, a frozen VM) while holding row locks,
   * and those locks would otherwise hold up the reaper's rescue of its jobs until it woke up.
   */
  @JsonProperty public Duration idleInTransactionTimeout = Duration.ofSeconds(10);

  /** Days of daily partitions kept created ahead of today. */
  @JsonProperty public int partitionDaysAhead = 14;

  /**
   * PostgreSQL cancels any statement of this pool's sessions that runs longer ({@code
   * statement_timeout}, SQLSTATE 57014); null or zero: none. Not a setting of the {@code postgres}
   * section: the {@code api} role sets it on its own pool from {@code api.statementTimeout}, and
   * the workers', planner's and reaper's pools run without one.
   */
  @JsonIgnore public Duration statementTimeout;

  public PostgresSettings() {}

  /** A copy of {@code other}, to change for one pool (a field added above is copied here too). */
  public PostgresSettings(PostgresSettings other) {
    this.url = other.url;
    this.user = other.user;
    this.password = other.password;
    this.maxPoolSize = other.maxPoolSize;
    this.connectionTimeout = other.connectionTimeout;
    this.idleInTransactionTimeout = other.idleInTransactionTimeout;
    this.partitionDaysAhead = other.partitionDaysAhead;
    this.statementTimeout = other.statementTimeout;
  }

  public PostgresSettings(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }
}
