package io.punctual.api.http;

import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
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
 *
 * <p><b>An answer to a request whose body was not read to its end says {@code Connection:
 * close}</b> (a refusal before the body, a 413, a route that reads no body). Jetty reads what has
 * arrived of an unread body when the answer is done, and if more is to come, closes the connection;
 * without the header a keep-alive client would send its next request on a connection the server is
 * closing, and see it fail ("header parser received no bytes"). A body read to its end (every
 * accepted submit) keeps the connection open.
 */
@Priority(Priorities.HEADER_DECORATOR)
public final class RequestSizeLimitFilter
    implements ContainerRequestFilter, ContainerResponseFilter {
  /** Jetty's GzipHandler names the coding it removed in this header (and drops the original). */
  private static final String INFLATED_HEADER = "X-Content-Encoding";

  /** ... and the length it removed in this one. */
  private static final String INFLATED_LENGTH_HEADER = "X-Content-Length";

  private static final String BODY = RequestSizeLimitFilter.class.getName() + ".body";

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
    Capped body = new Capped(request.getEntityStream(), maxBytes, coded);
    request.setProperty(BODY, body);
    request.setEntityStream(body);
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (!declaresBody(request)) {
      return;
    }
    if (request.getProperty(BODY) instanceof Capped body && body.ended) {
      return;
    }
    response.getHeaders().putSingle("Connection", "close");
  }

  /** Whether the request says a body follows its headers (chunked, or of a length over zero). */
  private static boolean declaresBody(ContainerRequestContext request) {
    return request.getLength() > 0
        || request.getHeaderString("Transfer-Encoding") != null
        || request.getHeaderString(INFLATED_LENGTH_HEADER) != null
        || request.getHeaderString(INFLATED_HEADER) != null;
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

    /** Whether the body was read to its end. */
    private volatile boolean ended;

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
      } else {
        ended = true;
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
      } else if (n < 0) {
        ended = true;
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
