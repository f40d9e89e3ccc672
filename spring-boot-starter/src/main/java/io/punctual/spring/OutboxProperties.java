package io.punctual.spring;

import io.punctual.app.outbox.OutboxRelaySettings;
import java.time.Duration;

/**
 * {@code punctual.outbox.*}: for an application whose database is not Punctual's. Jobs are written
 * as rows of {@code punctual_outbox} in the application's transaction ({@link TransactionalOutbox})
 * and a relay in the application forwards them to the API at {@code api-url}.
 */
public class OutboxProperties {
  private static final OutboxRelaySettings DEFAULTS = OutboxRelaySettings.DEFAULTS;

  /** The outbox instead of Punctual's database: no PunctualJobs, no embedded worker. */
  private boolean enabled = false;

  /** The Punctual API the relay forwards to, e.g. {@code https://punctual.internal:8080}. */
  private String apiUrl;

  /** The API key the relay sends (role {@code submitter} at least); never logged. */
  private String apiKey;

  /** Create {@code punctual_outbox} at start-up if it is missing (its migration, run again). */
  private boolean createTable = false;

  /** Whether this instance runs a relay (several may, on one table). */
  private boolean relay = true;

  private int batchSize = DEFAULTS.batchSize();
  private Duration pollInterval = DEFAULTS.pollInterval();
  private Duration lease = DEFAULTS.lease();
  private Duration firstBackoff = DEFAULTS.firstBackoff();
  private Duration maxBackoff = DEFAULTS.maxBackoff();
  private int forwardConcurrency = DEFAULTS.forwardConcurrency();
  private boolean listen = DEFAULTS.listen();

  /** The relay's settings (the record validates them: the caller renames its messages). */
  OutboxRelaySettings toSettings() {
    return new OutboxRelaySettings(
        batchSize, pollInterval, lease, firstBackoff, maxBackoff, forwardConcurrency, listen);
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getApiUrl() {
    return apiUrl;
  }

  public void setApiUrl(String apiUrl) {
    this.apiUrl = apiUrl;
  }

  public String getApiKey() {
    return apiKey;
  }

  public void setApiKey(String apiKey) {
    this.apiKey = apiKey;
  }

  public boolean isCreateTable() {
    return createTable;
  }

  public void setCreateTable(boolean createTable) {
    this.createTable = createTable;
  }

  public boolean isRelay() {
    return relay;
  }

  public void setRelay(boolean relay) {
    this.relay = relay;
  }

  public int getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(int batchSize) {
    this.batchSize = batchSize;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public Duration getFirstBackoff() {
    return firstBackoff;
  }

  public void setFirstBackoff(Duration firstBackoff) {
    this.firstBackoff = firstBackoff;
  }

  public Duration getMaxBackoff() {
    return maxBackoff;
  }

  public void setMaxBackoff(Duration maxBackoff) {
    this.maxBackoff = maxBackoff;
  }

  public int getForwardConcurrency() {
    return forwardConcurrency;
  }

  public void setForwardConcurrency(int forwardConcurrency) {
    this.forwardConcurrency = forwardConcurrency;
  }

  public boolean isListen() {
    return listen;
  }

  public void setListen(boolean listen) {
    this.listen = listen;
  }
}
