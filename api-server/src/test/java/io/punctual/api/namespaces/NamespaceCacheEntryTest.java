package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.namespace.Namespace;
import org.junit.jupiter.api.Test;

/** How a refresh's read replaces a namespace's pending count ({@link NamespaceCache.Entry}). */
class NamespaceCacheEntryTest {
  private final Namespace ns = Namespace.implicit("bounded");

  @Test
  void jobsAdmittedWhileTheRefreshCountedAreKept() {
    NamespaceCache.Entry entry = new NamespaceCache.Entry(ns, 0, 0, 1);
    long atCount = 0; // the refresh notes the admissions, then counts: 0 PENDING committed yet
    entry.admitted(2); // a batch admitted meanwhile, its commit after the count

    NamespaceCache.Entry fresh = entry.refreshed(ns, 0, atCount, 2);

    assertThat(fresh.pending()).isEqualTo(2);
  }

  @Test
  void jobsAdmittedBeforeTheCountAreCountedOnceByIt() {
    NamespaceCache.Entry entry = new NamespaceCache.Entry(ns, 0, 0, 1);
    entry.admitted(2); // committed before the refresh counted them
    long atCount = 2;

    NamespaceCache.Entry fresh = entry.refreshed(ns, 2, atCount, 2);

    assertThat(fresh.pending()).isEqualTo(2);
    fresh.admitted(1);
    assertThat(fresh.pending()).isEqualTo(3);
  }
}
