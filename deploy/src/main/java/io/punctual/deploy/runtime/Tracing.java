package io.punctual.deploy.runtime;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.punctual.worker.trace.AttemptTracing;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A role's OpenTelemetry, configured by the standard {@code OTEL_*} variables (OTLP endpoint,
 * protocol, headers, sampler, resource...). Tracing is on when one of {@code OTEL_TRACES_EXPORTER},
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} is set and
 * {@code OTEL_SDK_DISABLED} is not {@code true}; otherwise no SDK is made at all, so tracing off
 * costs nothing. Only traces are exported by default (metrics are on {@code /prometheus}): {@code
 * OTEL_METRICS_EXPORTER} and {@code OTEL_LOGS_EXPORTER} turn the others on. The service name
 * defaults to {@code punctual-<role>}.
 */
public final class Tracing {
  private static final Logger log = LoggerFactory.getLogger(Tracing.class);

  private Tracing() {}

  /** The SDK for {@code role} when the environment asks for traces; empty otherwise. */
  public static Optional<OpenTelemetrySdk> of(String role, Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", ""))
        || (blank(env.get("OTEL_TRACES_EXPORTER"))
            && blank(env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
            && blank(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")))) {
      return Optional.empty();
    }
    OpenTelemetrySdk sdk =
        AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(
                () ->
                    Map.of(
                        "otel.service.name", "punctual-" + role,
                        "otel.metrics.exporter", "none",
                        "otel.logs.exporter", "none"))
            .build()
            .getOpenTelemetrySdk();
    log.info("traces exported as the OTEL_* variables say, service punctual-{} by default", role);
    return Optional.of(sdk);
  }

  /** The worker's attempt tracing on {@code sdk}, or off. */
  public static AttemptTracing forWorker(Optional<OpenTelemetrySdk> sdk) {
    return sdk.map(AttemptTracing::on).orElseGet(AttemptTracing::off);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
