package io.punctual.api.problem;

import io.punctual.model.JobId;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The refusals the resources share about what a path names: no such thing in the request's
 * namespace (404), the id a path holds, and the 409 of a write that met what is there already.
 */
public final class ResourceRefusals {
  private ResourceRefusals() {}

  /** 404: "No {@code thing} {@code id} in this namespace." */
  public static ProblemException notFound(String thing, String id) {
    return Problems.notFound("No " + thing + " " + id + " in this namespace.");
  }

  /**
   * The id a path holds: a UUIDv7 in its 36-character form, as Punctual gives out for jobs,
   * workflows, schedules and alert rules. Anything else names nothing there: the same 404 as an id
   * that is not found.
   */
  public static UUID pathId(String thing, String id) {
    return JobId.parse(id).orElseThrow(() -> notFound(thing, id));
  }

  /**
   * What {@code write} returns; a {@code taken} it throws becomes the 409 {@code conflict} makes.
   */
  public static <T, E extends RuntimeException> T conflictOn(
      Class<E> taken, Supplier<T> write, Function<? super E, ProblemException> conflict) {
    try {
      return write.get();
    } catch (RuntimeException e) {
      if (taken.isInstance(e)) {
        throw conflict.apply(taken.cast(e));
      }
      throw e;
    }
  }
}
