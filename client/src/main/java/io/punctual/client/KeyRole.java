package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The role of an API key, least first; each may do what the ones before it may. On the wire they
 * are lower-case ({@code "operator"}).
 */
public enum KeyRole {
  /** Reads jobs, workflows, schedules and workers of its namespaces. */
  VIEWER,
  /** And submits jobs and workflows: for services. */
  SUBMITTER,
  /** And cancels jobs and workflows, and manages schedules. */
  OPERATOR,
  /** Only runs jobs over the worker protocol, in its namespaces: for remote workers (SDKs). */
  WORKER,
  /** Everything in every namespace: keys, namespaces, the audit log. */
  ADMIN;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static KeyRole fromWire(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
