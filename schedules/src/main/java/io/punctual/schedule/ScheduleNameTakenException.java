package io.punctual.schedule;

/** The namespace already has a schedule of that name (names are unique per namespace). */
public final class ScheduleNameTakenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String name;

  public ScheduleNameTakenException(String namespace, String name) {
    super("namespace " + namespace + " already has a schedule named " + name, null, false, false);
    this.name = name;
  }

  public String name() {
    return name;
  }
}
