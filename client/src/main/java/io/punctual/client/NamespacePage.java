package io.punctual.client;

import java.util.List;

/** One page of namespaces, by name; pass {@code nextCursor} to get the next one. */
public record NamespacePage(List<NamespaceView> items, String nextCursor) {
  public NamespacePage {
    items = items == null ? List.of() : List.copyOf(items);
  }

  public boolean hasMore() {
    return nextCursor != null;
  }
}
