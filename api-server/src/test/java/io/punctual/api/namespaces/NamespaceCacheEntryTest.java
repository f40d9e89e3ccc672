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
    entry.admitting(2); // a batch admitted meanwhile, its commit after the count

    NamespaceCache.Entry fresh = entry.refreshed(ns, 0, atCount, 2);

    assertThat(fresh.pending()).isEqualTo(2);
  }

  @Test
  void jobsAdmittedBeforeTheCountAreCountedOnceByIt() {
    NamespaceCache.Entry entry = new NamespaceCache.Entry(ns, 0, 0, 1);
    entry.admitting(2);
    entry.stored(2); // committed before the refresh counted them
    long atCount = entry.admittedAndEnded();
    assertThat(atCount).isEqualTo(2);

    NamespaceCache.Entry fresh = entry.refreshed(ns, 2, atCount, 2);

    assertThat(fresh.pending()).isEqualTo(2);
    fresh.admitting(1);
    assertThat(fresh.pending()).isEqualTo(3);
  }

  @Test
  void jobsAdmittedBeforeTheCountButStillBeingStoredAreKept() {
    NamespaceCache.Entry entry = new NamespaceCache.Entry(ns, 0, 0, 1);
    entry.admitting(2); // admitted before the refresh noted the admissions, not committed yet
    long atCount = entry.admittedAndEnded();
    assertThat(atCount).isZero();

    NamespaceCache.Entry fresh = entry.refreshed(ns, 0, atCount, 2);
    assertThat(fresh.pending()).isEqualTo(2);

    fresh.stored(2); // committed: the next read counts them, and no longer keeps them
    NamespaceCache.Entry next = fresh.refreshed(ns, 2, fresh.admittedAndEnded(), 3);
    assertThat(next.pending()).isEqualTo(2);
  }
}
