package io.punctual.store.limit;

/** A limit names a type another limit of the namespace already limits. */
public final class TypeLimitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String other;

  public TypeLimitedException(String type, String other) {
    super("type " + type + " is limited by limit " + other + " already");
    this.other = other;
  }

  /** The name of the limit that has the type. */
  public String other() {
    return other;
  }
}
