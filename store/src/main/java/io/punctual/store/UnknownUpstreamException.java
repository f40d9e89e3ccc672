package io.punctual.store;

import java.util.UUID;

/**
 * A new job names a job to wait for that does not exist in its namespace (HTTP 422 on the field
 * that names it).
 */
public final class UnknownUpstreamException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int index;
  private final UUID upstreamId;

  public UnknownUpstreamException(int index, UUID upstreamId) {
    super("no job " + upstreamId + " in this namespace to wait for");
    this.index = index;
    this.upstreamId = upstreamId;
  }

  /** Position of the job that names it in the submitted list. */
  public int index() {
    return index;
  }

  public UUID upstreamId() {
    return upstreamId;
  }
}
