package io.punctual.client;

import java.util.List;

/** One page of keys (without secrets); pass {@code nextCursor} to get the next one. */
public record KeyPage(List<KeyView> items, String nextCursor) {
  public KeyPage {
    items = items == null ? List.of() : List.copyOf(items);
  }

  public boolean hasMore() {
    return nextCursor != null;
  }
}
