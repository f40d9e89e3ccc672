package io.punctual.queue.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import org.junit.jupiter.api.Test;

/** The test servers clean up after the tests: their databases go, and nothing else does. */
class TestStoresIT {
  private static String nameOf(PostgresSettings database) {
    String url = database.url;
    int slash = url.lastIndexOf('/');
    int query = url.indexOf('?', slash);
    return url.substring(slash + 1, query < 0 ? url.length() : query);
  }

  @Test
  void aTestStackDropsItsDatabaseWhenItCloses() {
    TestStack stack = new TestStack();
    String name = nameOf(stack.postgres);
    assertThat(name).startsWith("t_");
    assertThat(TestStores.get().databaseExists(name)).isTrue();

    stack.close();

    assertThat(TestStores.get().databaseExists(name)).isFalse();
  }

  @Test
  void aDatabaseTheTestsDidNotCreateIsNeverDropped() {
    TestStores stores = TestStores.get();
    PostgresSettings ours = stores.newDatabase();
    PostgresSettings theServers =
        new PostgresSettings(
            ours.url.replace("/" + nameOf(ours), "/postgres"), ours.user, ours.password);

    stores.dropDatabase(theServers);
    stores.dropDatabase(ours);

    assertThat(stores.databaseExists("postgres")).isTrue();
    assertThat(stores.databaseExists(nameOf(ours))).isFalse();
  }
}
