package io.punctual.api.auth;

import io.punctual.store.sql.SqlFiles;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The {@code api_keys} table: create, find by prefix, list, revoke, record use. The SQL is in
 * {@code ApiKeys/*.sql} beside this class. Secrets never reach this class: only their SHA-256.
 */
public final class ApiKeys {
  private static final SqlFiles SQL = new SqlFiles(ApiKeys.class);
  private static final Instant BEFORE_ALL = Instant.EPOCH;
  private static final UUID LOWEST = new UUID(Long.MIN_VALUE, Long.MIN_VALUE);

  private final Jdbi jdbi;
  private final Clock clock;

  public ApiKeys(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  /**
   * A stored key with the hash of its secret, for the authenticator's comparison (an array: it is
   * only read, by {@link KeySecrets#sameHash}).
   */
  @SuppressWarnings("ArrayRecordComponent")
  private record Stored(ApiKey key, byte[] secretSha256) {}

  /** What a new key is: the secret is hashed here, never stored. */
  public record NewKey(String name, Role role, List<String> namespaces, Instant expiresAt) {}

  /**
   * Stores a key for {@code secret}.
   *
   * @return the key, or empty when a key with that secret exists already
   */
  public Optional<ApiKey> create(NewKey key, String secret) {
    UUID id = UUID.randomUUID();
    Instant now = clock.instant();
    int inserted =
        jdbi.withHandle(
            h ->
                h.createUpdate(SQL.get("insert"))
                    .bind("id", id)
                    .bind("name", key.name())
                    .bind("prefix", KeySecrets.prefix(secret))
                    .bind("secretSha256", KeySecrets.sha256(secret))
                    .bind("role", key.role().wireName())
                    .bind("namespaces", key.namespaces().toArray(String[]::new))
                    .bind("now", now)
                    .bind("expiresAt", key.expiresAt())
                    .execute());
    if (inserted == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new ApiKey(
            id,
            key.name(),
            KeySecrets.prefix(secret),
            key.role(),
            key.namespaces(),
            now,
            null,
            key.expiresAt()));
  }

  /** The keys not revoked whose secret starts like {@code prefix}. */
  private List<Stored> byPrefix(String prefix) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("byPrefix"))
                .bind("prefix", prefix)
                .map((rs, ctx) -> new Stored(key(rs, ctx), rs.getBytes("secret_sha256")))
                .list());
  }

  /**
   * The key not revoked whose secret has the SHA-256 {@code secretSha256} and starts like {@code
   * prefix}. Every candidate is compared, in constant time, whatever the first one gave.
   */
  public Optional<ApiKey> bySecret(String prefix, byte[] secretSha256) {
    ApiKey match = null;
    for (Stored stored : byPrefix(prefix)) {
      if (KeySecrets.sameHash(stored.secretSha256(), secretSha256)) {
        match = stored.key();
      }
    }
    return Optional.ofNullable(match);
  }

  /** The prefixes of every key not revoked. */
  public List<String> prefixes() {
    return jdbi.withHandle(h -> h.createQuery(SQL.get("prefixes")).mapTo(String.class).list());
  }

  public Optional<ApiKey> find(UUID id) {
    return jdbi.withHandle(
        h -> h.createQuery(SQL.get("find")).bind("id", id).map(ApiKeys::key).findOne());
  }

  /** Keys not revoked, oldest first, after {@code after} (null: from the start). */
  public List<ApiKey> list(ApiKey after, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("list"))
                .bind("afterCreatedAt", after == null ? BEFORE_ALL : after.createdAt())
                .bind("afterId", after == null ? LOWEST : after.id())
                .bind("limit", limit)
                .map(ApiKeys::key)
                .list());
  }

  /** Revokes a key; false when there is no such key not yet revoked. */
  public boolean revoke(UUID id) {
    return jdbi.withHandle(
            h ->
                h.createUpdate(SQL.get("revoke"))
                    .bind("id", id)
                    .bind("now", clock.instant())
                    .execute())
        == 1;
  }

  /** Records a use of the key, unless one was recorded within {@code precision}. */
  public void touch(UUID id, Duration precision) {
    Instant now = clock.instant();
    jdbi.useHandle(
        h ->
            h.createUpdate(SQL.get("touch"))
                .bind("id", id)
                .bind("now", now)
                .bind("recordedSince", now.minus(precision))
                .execute());
  }

  /** How many admin keys could sign in now. */
  public long activeAdmins() {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("activeAdmins"))
                .bind("now", clock.instant())
                .mapTo(Long.class)
                .one());
  }

  private static ApiKey key(ResultSet rs, StatementContext ctx) throws SQLException {
    Array namespaces = rs.getArray("namespaces");
    return new ApiKey(
        rs.getObject("id", UUID.class),
        rs.getString("name"),
        rs.getString("prefix"),
        Role.parse(rs.getString("role")).orElseThrow(),
        List.of((String[]) namespaces.getArray()),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("last_used_at")),
        instant(rs.getTimestamp("expires_at")));
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
