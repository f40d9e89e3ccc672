package io.punctual.store.testing;

import io.punctual.store.stats.StatsReader;
import java.util.List;

/** What tests compare of {@link StatsReader}'s groups (store's StatsHoursIT, the API's StatsIT). */
public final class StatsGroups {
  private StatsGroups() {}

  /** The attempts started over all {@code groups}. */
  public static long started(List<StatsReader.Group> groups) {
    return groups.stream().mapToLong(g -> g.counts().get("STARTED")).sum();
  }

  /** Every group's key, counts, histograms and success rate, one line each: equal or not. */
  public static String text(List<StatsReader.Group> groups) {
    StringBuilder b = new StringBuilder();
    for (StatsReader.Group g : groups) {
      b.append(g.key())
          .append(g.counts())
          .append(g.duration())
          .append(g.startLag())
          .append(g.successRate())
          .append('\n');
    }
    return b.toString();
  }
}
