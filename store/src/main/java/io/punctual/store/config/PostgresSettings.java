package io.punctual.store.config;

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

  public PostgresSettings() {}

  public PostgresSettings(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }
}
