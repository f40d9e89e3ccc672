package io.punctual.client;

import java.util.Objects;

/**
 * A key just created, with its {@code secret}: the one time the API shows it (it is stored only as
 * a hash). Keep it somewhere safe, and pass it to {@link PunctualClient#withApiKey}. {@link
 * #toString} leaves the secret out, so that logging this does not leak it.
 */
public record CreatedKey(KeyView key, String secret) {
  public CreatedKey {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(secret, "secret");
  }

  @Override
  public String toString() {
    return "CreatedKey[key=" + key + ", secret=<hidden>]";
  }
}
