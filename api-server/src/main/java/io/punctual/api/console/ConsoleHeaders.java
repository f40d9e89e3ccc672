package io.punctual.api.console;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The console's response headers: a Content-Security-Policy that runs only the console's own
 * scripts (no inline script, no {@code eval}, no other origin, no framing), {@code nosniff}, no
 * referrer, and revalidation on every load so that an upgrade is seen at once.
 */
public final class ConsoleHeaders implements Filter {
  /** Everything from the console's own origin only; nothing inline; never framed. */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
          + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletResponse http = (HttpServletResponse) response;
    http.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    http.setHeader("X-Content-Type-Options", "nosniff");
    http.setHeader("X-Frame-Options", "DENY");
    http.setHeader("Referrer-Policy", "no-referrer");
    http.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    http.setHeader("Cache-Control", "no-cache");
    chain.doFilter(request, response);
  }
}
