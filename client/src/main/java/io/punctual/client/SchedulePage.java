package io.punctual.client;

import java.util.List;

/** One page of schedules, by name; pass {@code nextCursor} to get the next one. */
public record SchedulePage(List<ScheduleView> items, String nextCursor) {
  public SchedulePage {
    items = items == null ? List.of() : List.copyOf(items);
  }

  public boolean hasMore() {
    return nextCursor != null;
  }
}
