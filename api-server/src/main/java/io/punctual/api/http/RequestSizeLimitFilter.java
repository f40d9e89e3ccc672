package io.punctual.api.http;

import io.punctual.api.problem.Problems;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Caps the size of a request body: a declared {@code Content-Length} over the cap is refused
 * without keeping any of it; a chunked body is read up to the cap and refused as soon as it passes
 * it. Either way the answer is a 413 problem.
 *
 * <p>Before answering, the filter reads and throws away what is left of an oversized body, up to
 * another {@code maxBytes}. Answering without reading it makes the server close a connection that
 * still has unread bytes, which resets it (TCP RST) while the client is still sending, and many
 * clients then report "connection reset" instead of the 413. Bodies larger still are cut off that
 * way: draining them would let any client make the server read without bound.
 */
@PreMatching
@Priority(Priorities.HEADER_DECORATOR)
public final class RequestSizeLimitFilter implements ContainerRequestFilter {
  private final long maxBytes;

  public RequestSizeLimitFilter(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  public void filter(ContainerRequestContext request) throws IOException {
    if (request.getLength() > maxBytes) {
      if (request.getLength() <= 2 * maxBytes) {
        discard(request.getEntityStream(), maxBytes * 2);
      }
      throw tooLarge();
    }
    if (!request.hasEntity()) {
      return;
    }
    InputStream in = request.getEntityStream();
    byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
    if (body.length > maxBytes) {
      discard(in, maxBytes);
      throw tooLarge();
    }
    request.setEntityStream(new ByteArrayInputStream(body));
  }

  /**
   * Reads and drops up to {@code limit} bytes; a client that hangs up meanwhile is not an error.
   */
  private static void discard(InputStream in, long limit) {
    try {
      byte[] sink = new byte[8192];
      long left = limit;
      int n;
      while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0) {
        left -= n;
      }
    } catch (IOException gone) {
      // the client stopped sending; the 413 goes out (or not) either way
    }
  }

  private RuntimeException tooLarge() {
    return Problems.tooLarge(null, "The request body is larger than " + maxBytes + " bytes.");
  }
}
