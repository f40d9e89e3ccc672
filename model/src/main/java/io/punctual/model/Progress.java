package io.punctual.model;

/**
 * How far a running attempt got, as its handler last reported: a percentage from 0 to 100, or
 * {@code done} out of {@code total} (the percentage then follows from them; both null otherwise).
 */
public record Progress(float percent, Long done, Long total) {

  public Progress {
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent must be between 0 and 100, was " + percent);
    }
    if ((done == null) != (total == null)) {
      throw new IllegalArgumentException("done and total go together");
    }
    if (done != null && (done < 0 || total <= 0 || done > total)) {
      throw new IllegalArgumentException(
          "done must be between 0 and total, and total positive: " + done + "/" + total);
    }
  }

  /** A percentage from 0 to 100. */
  public static Progress percent(double percent) {
    return new Progress((float) percent, null, null);
  }

  /** {@code done} of {@code total} (0 <= done <= total, total > 0). */
  public static Progress of(long done, long total) {
    if (total <= 0 || done < 0 || done > total) {
      throw new IllegalArgumentException(
          "done must be between 0 and total, and total positive: " + done + "/" + total);
    }
    return new Progress((float) (100.0 * done / total), done, total);
  }
}
