package io.punctual.api.jobs;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.api.audit.Actor;
import io.punctual.api.audit.AuditFilter;
import io.punctual.api.audit.AuditLog;
import io.punctual.api.auth.Permission;
import io.punctual.api.context.Authorizer;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.CrossSiteRefusal;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.ProblemResponses;
import io.punctual.api.problem.ServerErrors;
import io.punctual.requests.jobs.JobRequestParser;
import io.punctual.requests.jobs.ValidatedJob;
import io.punctual.store.JobSubmissions.Submitted;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code POST /api/v1/jobs} served without Jersey, for the requests that make up nearly all of its
 * traffic: a JSON body of known length, a valid namespace, a valid job. It runs the same code as
 * {@link JobsResource#submit} (the {@link Authorizer}, {@link JobRequestParser}, {@link
 * JobSubmitter}), answers the same statuses, headers and bodies, problems included, and updates the
 * same timer, and leaves the same audit entry as {@link io.punctual.api.audit.AuditFilter} would (a
 * request handed on is audited by Jersey's filter); what it skips is Jersey's routing, filters,
 * injection and message-body lookup, about a quarter of the API's CPU per single submit.
 *
 * <p>Everything else goes down the filter chain to Jersey untouched: other methods, other media
 * types or an {@code Accept} that is not plainly JSON, a {@code Content-Encoding}, two {@code
 * Authorization} or {@code Punctual-Namespace} headers, a body without a {@code Content-Length} or
 * over {@code api.maxRequestBytes}, and every request whose namespace, JSON or job is invalid (the
 * body it read is handed on, so Jersey answers the problem exactly as it always has). The key is
 * checked before any of the body is read: a request refused for its key, namespace or role is
 * handed on with its body unread, so a refusal never costs the body's bytes. Once a job is valid
 * the request is this class's to answer, whatever happens: it is never handed on after the store
 * was asked, so a submit can never run twice.
 */
public final class SubmitFastPath implements Filter {
  private static final String PATH = "/api/v1/jobs";
  private static final String AUDIT_ACTION = "POST " + PATH;

  private final Authorizer authorizer;
  private final JobRequestParser parser;
  private final JobSubmitter submitter;
  private final AuditLog audit;
  private final ObjectMapper mapper;
  private final long maxRequestBytes;
  private final Timer timer;
  private final Meter handedOn;

  public SubmitFastPath(
      Authorizer authorizer,
      JobRequestParser parser,
      JobSubmitter submitter,
      AuditLog audit,
      ObjectMapper mapper,
      long maxRequestBytes,
      MetricRegistry metrics) {
    this.authorizer = authorizer;
    this.parser = parser;
    this.submitter = submitter;
    this.audit = audit;
    this.mapper = mapper;
    this.maxRequestBytes = maxRequestBytes;
    // The name Dropwizard gives the @Timed resource method, so both paths count in one timer.
    this.timer = metrics.timer(MetricRegistry.name(JobsResource.class, "submit"));
    this.handedOn = metrics.meter("punctual.api.jobs.submitFastPath.handedOn");
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    long length = request.getContentLengthLong();
    // Mapped to every path: the path within Jersey's servlet (pathInfo) is the resource's path
    // whatever Jersey's root path is configured to be.
    if (!PATH.equals(request.getPathInfo())
        || !"POST".equals(request.getMethod())
        || length <= 0
        || length > maxRequestBytes
        // the raw header: getContentType() resolves its charset and throws on an unknown one
        || !isJson(request.getHeader("Content-Type"))
        || !acceptsJson(request.getHeader("Accept"))
        // a body in a content coding is Jersey's to refuse or (gzip, inflated by Jetty) to read
        || request.getHeader("Content-Encoding") != null
        // a browser's cross-site request: Jersey's CrossSiteRefusal refuses (and audits) it
        || request.getHeader(CrossSiteRefusal.HEADER) != null
        // two keys or namespaces: Jersey sees them all and refuses; getHeader sees the first only
        || repeated(request, "Authorization")
        || repeated(request, Authorizer.NAMESPACE_HEADER)) {
      chain.doFilter(req, res);
      return;
    }
    // The key first, from the headers alone: a request refused for its key (401), its namespace or
    // its role (403), or whose key could not be checked (PostgreSQL unreachable: 503), goes to
    // Jersey with its body unread, and Jersey refuses it again before reading it.
    RequestContext context;
    try {
      context =
          authorizer.resolve(
              request.getHeader("Authorization"), request.getHeader(Authorizer.NAMESPACE_HEADER));
      Authorizer.require(context, Permission.SUBMIT);
    } catch (RuntimeException refused) {
      handedOn.mark();
      chain.doFilter(req, res);
      return;
    }
    byte[] body = request.getInputStream().readNBytes((int) length);
    if (body.length < length || !serve(request, (HttpServletResponse) res, context, body)) {
      handedOn.mark();
      chain.doFilter(new ReplayedRequest(request, body), res);
    }
  }

  /** Answers the request, or returns false (having answered nothing) to hand it to Jersey. */
  private boolean serve(
      HttpServletRequest request, HttpServletResponse response, RequestContext context, byte[] body)
      throws IOException {
    ValidatedJob job;
    try {
      job =
          parser
              .parseOne(mapper.readTree(body))
              .withTraceparent(request.getHeader(JobsResource.TRACEPARENT));
    } catch (JsonProcessingException | RuntimeException notServedHere) {
      // Jersey answers the same problem (and times it): an invalid job. Nothing was stored yet.
      return false;
    }
    Timer.Context timing = timer.time();
    // Recorded before the body is written: the client may have the answer (and act again) as
    // soon as it is, and the audit's order and times follow the answers.
    boolean audited = false;
    try {
      RateHeaders rate = new RateHeaders();
      Submitted submitted = submitter.submitOne(context.namespace(), job, rate);
      String id = submitted.job().id().toString();
      response.setStatus(submitted.created() ? 201 : 200);
      rate.writeTo(response::setHeader);
      if (submitted.created()) {
        response.setHeader("Location", request.getRequestURL().append('/').append(id).toString());
      }
      audited = audit(request, context, id, response.getStatus(), null);
      write(response, "application/json", JobsResource.representation(submitted, job));
    } catch (ProblemException e) {
      Response refusal = ProblemResponses.of(e.problem(), request.getRequestURI());
      audited = audited || audit(request, context, null, refusal.getStatus(), e.problem().type());
      write(response, refusal);
    } catch (RuntimeException e) {
      Response error = ServerErrors.toResponse(e, request.getRequestURI());
      String type = error.getEntity() instanceof Problem p ? p.type() : null;
      audited = audited || audit(request, context, null, error.getStatus(), type);
      write(response, error);
    } finally {
      timing.stop();
    }
    return true;
  }

  /** Records the answer as the AuditFilter records one Jersey gives (a request handed on). */
  private boolean audit(
      HttpServletRequest request, RequestContext context, String id, int status, String problem) {
    audit.record(
        actor(context),
        AUDIT_ACTION,
        id,
        status,
        problem,
        request.getHeader(AuditFilter.REQUEST_ID_HEADER));
    return true;
  }

  /** The sender of a request for the audit log, as its {@link RequestContext} says. */
  public static Actor actor(RequestContext context) {
    return new Actor(
        context.principal().keyId(),
        context.principal().keyName(),
        context.namespace(),
        context.principal().namespaces());
  }

  private void write(HttpServletResponse response, Response problem) throws IOException {
    response.setStatus(problem.getStatus());
    for (Map.Entry<String, List<String>> h : problem.getStringHeaders().entrySet()) {
      if (!h.getKey().equalsIgnoreCase("Content-Type")) {
        h.getValue().forEach(v -> response.addHeader(h.getKey(), v));
      }
    }
    write(response, problem.getMediaType().toString(), problem.getEntity());
  }

  private void write(HttpServletResponse response, String mediaType, Object entity)
      throws IOException {
    response.setContentType(mediaType);
    // Straight into Jetty's response buffer, which sets Content-Length when it holds the whole
    // answer at the end (always, for a job): no intermediate byte array per request.
    mapper.writeValue(response.getOutputStream(), entity);
  }

  private static boolean repeated(HttpServletRequest request, String header) {
    Enumeration<String> values = request.getHeaders(header);
    if (values == null || !values.hasMoreElements()) {
      return false;
    }
    values.nextElement();
    return values.hasMoreElements();
  }

  /** {@code application/json}, with no parameter but a UTF-8 charset (JSON's only encoding). */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String[] parts = contentType.split(";", -1);
    if (!parts[0].trim().equalsIgnoreCase("application/json")) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim().toLowerCase(Locale.ROOT).replace("\"", "");
      if (!p.equals("charset=utf-8")) {
        return false;
      }
    }
    return true;
  }

  /**
   * No {@code Accept}, or one listing only ranges that take JSON, without parameters (quality
   * values are Jersey's to weigh).
   */
  static boolean acceptsJson(String accept) {
    if (accept == null || accept.isBlank()) {
      return true;
    }
    for (String entry : accept.split(",", -1)) {
      String range = entry.trim().toLowerCase(Locale.ROOT);
      if (!range.equals("*/*")
          && !range.equals("application/*")
          && !range.equals("application/json")) {
        return false;
      }
    }
    return true;
  }
}
