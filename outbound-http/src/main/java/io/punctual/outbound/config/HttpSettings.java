package io.punctual.outbound.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.outbound.address.OutboundPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What Punctual may send to the outside and how ({@code worker.http}): the time and size caps of
 * the guarded client, the addresses it may reach besides the public internet, and the secrets that
 * sign what it sends. The worker's {@code http} handler and the alerter's notices both read it.
 */
public class HttpSettings {
  /**
   * Gone: each namespace signs with its own secrets ({@code /api/v1/namespaces/{name}/
   * signing-secrets}). Kept only to refuse a configuration that still gives it, saying so (without
   * showing the value).
   */
  @JsonIgnore public List<String> signingSecrets = new ArrayList<>();

  /** Time allowed to open a connection to a callback URL. */
  @JsonProperty public Duration connectTimeout = Duration.ofSeconds(5);

  /**
   * Time allowed for a whole callback exchange, redirects and reading the answer included (also
   * capped by the job's deadline); also the longest wait for any one read.
   */
  @JsonProperty public Duration requestTimeout = Duration.ofSeconds(30);

  /**
   * Most bytes of a callback's answer read; the rest is not read (the connection is dropped). A 2xx
   * answer longer than this stores no result; an error answer appears in {@code lastError} as an
   * excerpt of at most 200 characters anyway.
   */
  @JsonProperty public int maxResponseBytes = 65_536;

  /**
   * What callbacks may reach besides the public internet: CIDR blocks ({@code 10.1.0.0/16}, {@code
   * 127.0.0.1/32}, {@code fd00::/8}), single addresses and host names (any address the name
   * resolves to). Loopback, private, link-local, unspecified, multicast and reserved addresses are
   * refused otherwise. The API refuses callback URLs that spell a refused address by the same list.
   * A YAML list, or one string of comma-separated entries (env {@code PUNCTUAL_HTTP_ALLOW}).
   */
  @JsonIgnore public List<String> allow = new ArrayList<>();

  @JsonProperty("allow")
  public List<String> getAllow() {
    return allow;
  }

  /** A list of strings, or one string (entries separated by commas); null or blank: none. */
  @JsonProperty("allow")
  public void setAllow(JsonNode value) {
    allow = split(value);
  }

  /** A list of strings, or one string (entries separated by commas); null or blank: none. */
  @JsonProperty(value = "signingSecrets", access = JsonProperty.Access.WRITE_ONLY)
  public void setSigningSecrets(JsonNode value) {
    signingSecrets = split(value);
  }

  /** A list of strings or one string, split at commas (blank entries dropped). */
  private static List<String> split(JsonNode value) {
    List<String> entries = new ArrayList<>();
    if (value != null && value.isArray()) {
      value.forEach(v -> entries.add(v.isTextual() ? v.textValue() : v.toString()));
    } else if (value != null && !value.isNull()) {
      entries.add(value.isTextual() ? value.textValue() : value.toString());
    }
    return OutboundPolicy.split(entries);
  }

  /**
   * The policy {@link #allow} describes.
   *
   * @throws InvalidSettingsException naming each entry that is not a CIDR block, an address or a
   *     host name
   */
  public OutboundPolicy outboundPolicy() {
    SettingsErrors errors = new SettingsErrors();
    OutboundPolicy policy = OutboundPolicy.parse(allow, "worker.http.allow", errors);
    errors.throwIfAny();
    return policy;
  }

  /** Adds every setting that makes no sense to {@code errors}, each under {@code worker.http}. */
  public void validate(SettingsErrors errors) {
    errors.positive(connectTimeout, "worker.http.connectTimeout");
    errors.positive(requestTimeout, "worker.http.requestTimeout");
    errors.require(maxResponseBytes >= 1, "worker.http.maxResponseBytes must be >= 1");
    OutboundPolicy.parse(allow, "worker.http.allow", errors);
    errors.require(
        signingSecrets == null || signingSecrets.isEmpty(),
        "worker.http.signingSecrets (PUNCTUAL_HTTP_SIGNING_SECRETS) is gone: every namespace signs"
            + " its deliveries with secrets of its own; make one with POST"
            + " /api/v1/namespaces/{name}/signing-secrets (docs/handlers.md) and remove the"
            + " setting");
  }
}
