package io.punctual.client;

import java.util.List;

/** One page of a job listing; pass {@code nextCursor} to {@link ListQuery#cursor} for the next. */
public record JobPage(List<JobView> items, String nextCursor) {
  public JobPage {
    items = items == null ? List.of() : List.copyOf(items);
  }

  public boolean hasMore() {
    return nextCursor != null;
  }
}
