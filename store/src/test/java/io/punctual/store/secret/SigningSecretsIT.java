package io.punctual.store.secret;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SigningSecretsIT {
  private static final byte[] KEY = new byte[32];

  static {
    for (int i = 0; i < KEY.length; i++) {
      KEY[i] = (byte) (i * 7 + 3);
    }
  }

  private final TestClock clock = TestClock.at("2026-11-29T10:00:00Z");
  private final StoreStack stack = new StoreStack(clock);
  private final SigningSecrets secrets =
      new SigningSecrets(stack.database.jdbi(), clock, SecretSealer.withKey(KEY));

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void aSecretIsShownWhenMadeListedWithoutItsValueAndSignsUntilDeleted() {
    SigningSecrets.Created first = secrets.create("billing").orElseThrow();
    clock.advance(java.time.Duration.ofSeconds(1));
    SigningSecrets.Created second = secrets.create("billing").orElseThrow();

    assertThat(first.key()).hasSize(SigningSecrets.SECRET_BYTES);
    assertThat(secrets.list("billing"))
        .extracting(SigningSecrets.Listed::id)
        .containsExactly(first.id(), second.id());
    assertThat(secrets.signingKeysOf("billing")).containsExactly(first.key(), second.key());

    assertThat(secrets.delete("billing", first.id())).isEqualTo(SigningSecrets.Deleted.DELETED);
    assertThat(secrets.signingKeysOf("billing")).containsExactly(second.key());
    assertThat(secrets.delete("billing", first.id())).isEqualTo(SigningSecrets.Deleted.NOT_FOUND);
  }

  @Test
  void theLastSecretIsKeptAndANamespaceWithoutOneGetsOneWhenItSigns() {
    List<byte[]> made = secrets.signingKeysOf("new-tenant");
    assertThat(made).hasSize(1);
    UUID only = secrets.list("new-tenant").get(0).id();

    assertThat(secrets.delete("new-tenant", only)).isEqualTo(SigningSecrets.Deleted.LAST);
    assertThat(secrets.signingKeysOf("new-tenant")).containsExactly(made.get(0));
    assertThat(secrets.ensure("new-tenant")).isEmpty();
  }

  @Test
  void concurrentDeletesNeverLeaveANamespaceWithoutASecret() throws Exception {
    UUID a = secrets.create("race").orElseThrow().id();
    UUID b = secrets.create("race").orElseThrow().id();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Callable<SigningSecrets.Deleted>> deletes =
          List.of(() -> secrets.delete("race", a), () -> secrets.delete("race", b));
      List<SigningSecrets.Deleted> results = new java.util.ArrayList<>();
      for (Future<SigningSecrets.Deleted> f : pool.invokeAll(deletes)) {
        results.add(f.get());
      }
      assertThat(results)
          .containsExactlyInAnyOrder(SigningSecrets.Deleted.DELETED, SigningSecrets.Deleted.LAST);
    } finally {
      pool.shutdownNow();
    }
    assertThat(secrets.list("race")).hasSize(1);
  }

  @Test
  void everyNamespaceWithARowGetsAFirstSecret() {
    assertThat(secrets.list("default")).isEmpty();

    assertThat(secrets.ensureEvery()).isGreaterThanOrEqualTo(1);

    assertThat(secrets.list("default")).hasSize(1);
    assertThat(secrets.ensureEvery()).isZero();
  }

  @Test
  void theValuesAreSealedAndOpenOnlyUnderTheirKeyAndForTheirNamespace() {
    SigningSecrets.Created made = secrets.create("billing").orElseThrow();
    byte[] stored =
        stack
            .database
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT secret FROM namespace_signing_secrets WHERE id = :id")
                        .bind("id", made.id())
                        .mapTo(byte[].class)
                        .one());
    assertThat(stored).isNotEqualTo(made.key()).hasSizeGreaterThan(made.key().length);

    // The row moved to another namespace does not open there.
    stack
        .database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "UPDATE namespace_signing_secrets SET namespace = 'evil' WHERE id = :id")
                    .bind("id", made.id())
                    .execute());
    assertThatThrownBy(() -> secrets.signingKeysOf("evil"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageNotContaining(
            new String(made.key(), java.nio.charset.StandardCharsets.ISO_8859_1));

    // Another deployment key cannot read them at all, and says so.
    byte[] other = KEY.clone();
    other[0] ^= 1;
    SigningSecrets elsewhere =
        new SigningSecrets(stack.database.jdbi(), clock, SecretSealer.withKey(other));
    assertThatThrownBy(() -> elsewhere.signingKeysOf("evil"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot be read with this deployment's secrets settings");
  }

  @Test
  void plainStorageKeepsTheBytesAsTheyAre() {
    SigningSecrets plain = new SigningSecrets(stack.database.jdbi(), clock, SecretSealer.plain());
    SigningSecrets.Created made = plain.create("ops").orElseThrow();

    assertThat(plain.signingKeysOf("ops")).containsExactly(made.key());
    assertThatThrownBy(() -> secrets.signingKeysOf("ops"))
        .isInstanceOf(IllegalStateException.class);
  }
}
