package io.punctual.worker.trace;

import com.google.errorprone.annotations.MustBeClosed;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.punctual.model.Job;
import java.util.List;

/**
 * One span per attempt, a child of the {@code traceparent} the job was submitted with: the trace of
 * the request that submitted a job goes on through the worker that runs it, its follow-ups and the
 * {@code http} handler's call. {@link #off()} (no OpenTelemetry configured) opens nothing and hands
 * the job's own {@code traceparent} on, costing a field read per attempt.
 */
public final class AttemptTracing {
  private static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("punctual.job.id");
  private static final AttributeKey<String> TYPE = AttributeKey.stringKey("punctual.job.type");
  private static final AttributeKey<String> NAMESPACE =
      AttributeKey.stringKey("punctual.namespace");
  private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("punctual.job.attempt");
  private static final AttributeKey<String> OUTCOME =
      AttributeKey.stringKey("punctual.job.outcome");

  private static final TextMapGetter<String> TRACEPARENT_ONLY =
      new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // still abstract in the API; W3C extraction never calls it
        public Iterable<String> keys(String carrier) {
          return List.of("traceparent");
        }

        @Override
        public String get(String carrier, String key) {
          return "traceparent".equals(key) ? carrier : null;
        }
      };

  private final Tracer tracer;

  private AttemptTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /** Spans on {@code otel}'s tracer provider. */
  public static AttemptTracing on(OpenTelemetry otel) {
    return new AttemptTracing(otel.getTracer("io.punctual.worker"));
  }

  /** No spans: attempts hand on the job's own traceparent. */
  public static AttemptTracing off() {
    return new AttemptTracing(null);
  }

  /** Opens the span of {@code job}'s current attempt (close it when the attempt ended). */
  public AttemptSpan start(Job job) {
    if (tracer == null) {
      return new AttemptSpan(null, job.traceparent());
    }
    Context parent =
        job.traceparent() == null
            ? Context.root()
            : W3CTraceContextPropagator.getInstance()
                .extract(Context.root(), job.traceparent(), TRACEPARENT_ONLY);
    Span span =
        tracer
            .spanBuilder("run " + job.type())
            .setParent(parent)
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(JOB_ID, job.id().toString())
            .setAttribute(TYPE, job.type())
            .setAttribute(NAMESPACE, job.namespace())
            .setAttribute(ATTEMPT, (long) job.attempt())
            .startSpan();
    String own = traceparent(span.getSpanContext());
    return new AttemptSpan(span, own != null ? own : job.traceparent());
  }

  /**
   * The W3C {@code traceparent} of {@code ctx}, {@code 00-<trace id>-<span id>-<flags>}, or null
   * when it is not valid (no span).
   */
  public static String traceparent(SpanContext ctx) {
    return ctx.isValid()
        ? "00-" + ctx.getTraceId() + "-" + ctx.getSpanId() + "-" + ctx.getTraceFlags().asHex()
        : null;
  }

  /** An attempt's span, or none when tracing is off. */
  public static final class AttemptSpan implements AutoCloseable {
    private final Span span;
    private final String traceparent;

    AttemptSpan(Span span, String traceparent) {
      this.span = span;
      this.traceparent = traceparent;
    }

    /** What the attempt hands on: its span's traceparent, or the job's own when off. */
    public String traceparent() {
      return traceparent;
    }

    /** Makes the span current on this thread (for instrumented calls the handler makes). */
    @MustBeClosed
    public Scope makeCurrent() {
      return span == null ? Scope.noop() : span.makeCurrent();
    }

    /** Records how the attempt ended ({@code failed}: an error status). */
    public void ended(String outcome, boolean failed) {
      if (span != null) {
        span.setAttribute(OUTCOME, outcome);
        if (failed) {
          span.setStatus(StatusCode.ERROR, outcome);
        }
      }
    }

    @Override
    public void close() {
      if (span != null) {
        span.end();
      }
    }
  }
}
