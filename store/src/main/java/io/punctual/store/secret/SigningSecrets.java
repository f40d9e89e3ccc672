package io.punctual.store.secret;

import io.punctual.store.sql.SqlFiles;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The namespaces' signing secrets ({@code namespace_signing_secrets}, V24): what signs a
 * namespace's deliveries. A secret's value leaves this class twice only: to the caller that made it
 * (shown once) and to what signs with it; lists give ids and dates. Every namespace keeps at least
 * one: {@link #delete} refuses the last, {@link #signingKeysOf} makes one when there is none.
 * Changes of one namespace's secrets take a transaction lock on its name, so they run one at a
 * time.
 */
public final class SigningSecrets {
  /** Random bytes of a secret (Standard Webhooks asks for 24 to 64). */
  public static final int SECRET_BYTES = 32;

  private static final SqlFiles SQL = new SqlFiles(SigningSecrets.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Jdbi jdbi;
  private final Clock clock;
  private final SecretSealer sealer;

  public SigningSecrets(Jdbi jdbi, Clock clock, SecretSealer sealer) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.sealer = sealer;
  }

  /** A secret as listed: no value. */
  public record Listed(UUID id, Instant createdAt) {}

  /** A secret just made: its value, shown once. */
  public static final class Created {
    private final UUID id;
    private final byte[] key;
    private final Instant createdAt;

    Created(UUID id, byte[] key, Instant createdAt) {
      this.id = id;
      this.key = key.clone();
      this.createdAt = createdAt;
    }

    public UUID id() {
      return id;
    }

    /** A copy of the secret's bytes. */
    public byte[] key() {
      return key.clone();
    }

    public Instant createdAt() {
      return createdAt;
    }

    @Override
    public String toString() {
      return "Created[id=" + id + ", createdAt=" + createdAt + ", key=(hidden)]";
    }
  }

  /** What deleting a secret did. */
  public enum Deleted {
    DELETED,
    NOT_FOUND,
    /** It is the namespace's last secret, which is kept. */
    LAST
  }

  /**
   * Most secrets a namespace holds at once: every one signs every delivery (a rotation needs two),
   * so the cap bounds the signatures one delivery carries and the work of making them.
   */
  public static final int MAX_PER_NAMESPACE = 10;

  /**
   * A new secret of {@code namespace} (besides its others, all of which sign); empty when it holds
   * {@link #MAX_PER_NAMESPACE} already.
   */
  public Optional<Created> create(String namespace) {
    return jdbi.inTransaction(
        h -> {
          lock(h, namespace);
          if (keys(h, namespace).size() >= MAX_PER_NAMESPACE) {
            return Optional.empty();
          }
          return Optional.of(insert(h, namespace));
        });
  }

  /** The namespace's secrets, oldest first, without their values. */
  public List<Listed> list(String namespace) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("active"))
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) ->
                        new Listed(
                            rs.getObject("id", UUID.class),
                            rs.getTimestamp("created_at").toInstant()))
                .list());
  }

  /** Deletes one secret of the namespace, unless it is its last. */
  public Deleted delete(String namespace, UUID id) {
    return jdbi.inTransaction(
        h -> {
          lock(h, namespace);
          boolean deleted =
              h.createQuery(SQL.get("delete"))
                  .bind("namespace", namespace)
                  .bind("id", id)
                  .mapTo(UUID.class)
                  .findOne()
                  .isPresent();
          if (deleted) {
            return Deleted.DELETED;
          }
          boolean exists = keys(h, namespace).stream().anyMatch(k -> k.id.equals(id));
          return exists ? Deleted.LAST : Deleted.NOT_FOUND;
        });
  }

  /**
   * The namespace's secrets' values, oldest first; one is made first (and returned) when it has
   * none, so that nothing a namespace sends goes unsigned.
   */
  public List<byte[]> signingKeysOf(String namespace) {
    List<Sealed> sealed = jdbi.withHandle(h -> keys(h, namespace));
    if (sealed.isEmpty()) {
      ensure(namespace);
      sealed = jdbi.withHandle(h -> keys(h, namespace));
    }
    List<byte[]> out = new ArrayList<>(sealed.size());
    for (Sealed s : sealed) {
      out.add(sealer.open(s.secret, s.keyId, owner(namespace, s.id)));
    }
    return out;
  }

  /** Makes the namespace's first secret if it has none; the one made, if any. */
  public Optional<Created> ensure(String namespace) {
    return jdbi.inTransaction(
        h -> {
          lock(h, namespace);
          return keys(h, namespace).isEmpty()
              ? Optional.of(insert(h, namespace))
              : Optional.empty();
        });
  }

  /** Makes a first secret for every namespace with a row that has none; how many were made. */
  public int ensureEvery() {
    List<String> without =
        jdbi.withHandle(h -> h.createQuery(SQL.get("without")).mapTo(String.class).list());
    int made = 0;
    for (String namespace : without) {
      made += ensure(namespace).isPresent() ? 1 : 0;
    }
    return made;
  }

  /** A stored row: its id, its sealed bytes, the key that sealed them. */
  private static final class Sealed {
    final UUID id;
    final byte[] secret;
    final String keyId;

    Sealed(UUID id, byte[] secret, String keyId) {
      this.id = id;
      this.secret = secret;
      this.keyId = keyId;
    }
  }

  private static List<Sealed> keys(Handle h, String namespace) {
    return h.createQuery(SQL.get("active"))
        .bind("namespace", namespace)
        .map(
            (rs, ctx) ->
                new Sealed(
                    rs.getObject("id", UUID.class), rs.getBytes("secret"), rs.getString("key_id")))
        .list();
  }

  private Created insert(Handle h, String namespace) {
    UUID id = UUID.randomUUID();
    byte[] key = new byte[SECRET_BYTES];
    RANDOM.nextBytes(key);
    Instant now = clock.instant();
    h.createUpdate(SQL.get("insert"))
        .bind("id", id)
        .bind("namespace", namespace)
        .bind("secret", sealer.seal(key, owner(namespace, id)))
        .bind("keyId", sealer.keyId())
        .bind("now", now)
        .execute();
    return new Created(id, key, now);
  }

  private static void lock(Handle h, String namespace) {
    h.createQuery(SQL.get("lock")).bind("namespace", namespace).mapTo(String.class).list();
  }

  /** What a secret is sealed for: its namespace and its id. */
  private static String owner(String namespace, UUID id) {
    return "namespace-signing-secret/" + namespace + "/" + id;
  }
}
