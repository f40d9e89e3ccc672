package io.punctual.store.sql;

import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;

/**
 * The SQL statements kept as resources beside one DAO class ({@code <package path>/<Class>/<name>
 * .sql}), each read once. Jdbi's locator caches the files' text but rebuilds and checks the
 * resource path on every call, which showed in the worker's profile at a few statements per claim.
 */
public final class SqlFiles {
  private static final ClasspathSqlLocator LOCATOR = ClasspathSqlLocator.create();

  private final Class<?> owner;
  private final ConcurrentHashMap<String, String> statements = new ConcurrentHashMap<>();

  public SqlFiles(Class<?> owner) {
    this.owner = owner;
  }

  /** The statement {@code name}; throws if there is no such resource. */
  public String get(String name) {
    return statements.computeIfAbsent(name, n -> LOCATOR.locate(owner, n));
  }
}
