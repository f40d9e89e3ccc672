package io.punctual.api.http;

import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Caps the size of a request body, as read: a declared {@code Content-Length} over the cap is
 * refused without keeping any of it; any other body (chunked, or gzip, which Jetty inflates as it
 * is read) is handed on as a stream that fails with the 413 problem as soon as more than the cap
 * has been read. Nothing is buffered here, so a body costs what its reader keeps of it, and a gzip
 * bomb stops being inflated one buffer past the cap.
 *
 * <p>Runs after {@link io.punctual.api.context.Authorizer} and the permission check (it is not a
 * pre-matching filter, and its priority is after both): a request without a valid key, or whose key
 * may not call the route, is refused before any of its body is read or inflated. Jetty then reads
 * what has already arrived of the unread body without inflating it, and closes the connection if
 * more was to come.
 *
 * <p>Before answering the 413, the filter reads and throws away what is left of an oversized plain
 * body, up to another {@code maxBytes}. Answering without reading it makes the server close a
 * connection that still has unread bytes, which resets it (TCP RST) while the client is still
 * sending, and many clients then report "connection reset" instead of the 413. Bodies larger still
 * are cut off that way: draining them would let any client make the server read without bound. A
 * content-coded body is not drained: what is left of it would be inflated to be thrown away.
 */
@Priority(Priorities.HEADER_DECORATOR)
public final class RequestSizeLimitFilter implements ContainerRequestFilter {
  /** Jetty's GzipHandler names the coding it removed in this header (and drops the original). */
  private static final String INFLATED_HEADER = "X-Content-Encoding";

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
    boolean coded =
        request.getHeaderString(INFLATED_HEADER) != null
            || request.getHeaderString(ContentEncodingFilter.HEADER) != null;
    request.setEntityStream(new Capped(request.getEntityStream(), maxBytes, coded));
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

  private ProblemException tooLarge() {
    return Problems.tooLarge(null, "The request body is larger than " + maxBytes + " bytes.");
  }

  /**
   * The body as read, failing with the 413 problem once more than {@code maxBytes} were read (a
   * runtime exception, so that the JSON reader hands it on as it is, to the problem mapper).
   */
  private final class Capped extends FilterInputStream {
    private final long max;
    private final boolean coded;
    private long read;

    Capped(InputStream in, long max, boolean coded) {
      super(in);
      this.max = max;
      this.coded = coded;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      // never more than one byte past the cap: enough to tell, and nothing more is inflated
      long allowed = Math.max(1, max + 1 - read);
      int n = super.read(buffer, offset, (int) Math.min(length, allowed));
      if (n > 0) {
        counted(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = super.skip(Math.min(n, Math.max(1, max + 1 - read)));
      if (skipped > 0) {
        counted(skipped);
      }
      return skipped;
    }

    @Override
    public boolean markSupported() {
      return false;
    }

    @Override
    public synchronized void mark(int limit) {
      // not supported: a reset would let the count run behind what was read
    }

    @Override
    public synchronized void reset() throws IOException {
      throw new IOException("mark/reset not supported");
    }

    private void counted(long n) {
      read += n;
      if (read > max) {
        if (!coded) {
          discard(in, max);
        }
        throw tooLarge();
      }
    }
  }
}
