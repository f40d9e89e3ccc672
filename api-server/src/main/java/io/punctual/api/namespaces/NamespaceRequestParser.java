package io.punctual.api.namespaces;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.context.Authorizer;
import io.punctual.api.problem.Problems;
import io.punctual.common.config.SettingsErrors;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.requests.Fields;
import io.punctual.requests.Violations;
import io.punctual.store.namespace.Egress;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Quota;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The bodies of the namespace routes: {@code {"name", "quota"?, "weight"?}} to create one, a quota
 * to replace one's, {@code {"weight"}} to set one's weight (1 to 1000, default 1). In a quota every
 * limit is optional and null or absent is no limit; {@code burst} needs {@code submitsPerSecond}
 * and defaults to it. Every mistake is a 422 naming its field.
 */
final class NamespaceRequestParser {
  static final int MAX_RATE = 1_000_000;
  static final long MAX_PENDING = 1_000_000_000_000L;

  private static final Set<String> CREATE_FIELDS = Set.of("name", "quota", "weight");
  private static final Set<String> WEIGHT_FIELDS = Set.of("weight");
  private static final Set<String> EGRESS_FIELDS = Set.of("allow", "keepResponse");

  /** Most entries an egress grant may list. */
  static final int MAX_EGRESS_ENTRIES = 100;

  private static final Set<String> QUOTA_FIELDS =
      Set.of(
          "submitsPerSecond", "burst", "maxPending", "maxPayloadBytes", "maxRunning", "maxTimeout");

  /** The most attempts a namespace's running cap may allow (as a limit's concurrency). */
  static final int MAX_RUNNING = 10_000;

  private NamespaceRequestParser() {}

  record Create(String name, Quota quota, int weight) {}

  static Create parseCreate(JsonNode body) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(CREATE_FIELDS);
    String name = f.string("name", true, 100);
    if (name != null && !Authorizer.isValidNamespace(name)) {
      f.error(
          "name",
          "must be 1 to 100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
    }
    Quota quota = Quota.UNLIMITED;
    JsonNode q = f.get("quota");
    if (q != null) {
      if (q instanceof ObjectNode quotaObject) {
        quota = quota(new Fields(quotaObject, "quota.", violations));
      } else {
        f.error("quota", "must be an object");
      }
    }
    Integer weight = f.integer("weight", Namespace.MIN_WEIGHT, Namespace.MAX_WEIGHT);
    violations.throwIfAny();
    return new Create(name, quota, weight == null ? Namespace.DEFAULT_WEIGHT : weight);
  }

  static Quota parseQuota(JsonNode body) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Quota quota = quota(new Fields(object, "", violations));
    violations.throwIfAny();
    return quota;
  }

  /** {@code {"weight": n}}, n from 1 to 1000. */
  static int parseWeight(JsonNode body) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(WEIGHT_FIELDS);
    if (!f.has("weight")) {
      f.error("weight", "is required");
    }
    Integer weight = f.integer("weight", Namespace.MIN_WEIGHT, Namespace.MAX_WEIGHT);
    violations.throwIfAny();
    return weight;
  }

  /**
   * An egress grant: {@code allow} (required; CIDR blocks, addresses and host names, each within
   * {@code ceiling}, the deployment's {@code worker.http.allow}) and {@code keepResponse} (default
   * false). Each entry in error is named by its place ({@code allow[2]}).
   */
  static Egress parseEgress(JsonNode body, OutboundPolicy ceiling) {
    ObjectNode object = Problems.requireObject(body, "");
    Violations violations = new Violations();
    Fields f = new Fields(object, "", violations);
    f.rejectUnknown(EGRESS_FIELDS);
    JsonNode allow = f.get("allow");
    List<String> entries = new ArrayList<>();
    if (allow == null) {
      f.error("allow", "is required (an empty list grants nothing)");
    } else if (!allow.isArray()) {
      f.error("allow", "must be a list of CIDR blocks, addresses and host names");
    } else if (allow.size() > MAX_EGRESS_ENTRIES) {
      f.error("allow", "must have at most " + MAX_EGRESS_ENTRIES + " entries");
    } else {
      for (int i = 0; i < allow.size(); i++) {
        String at = "allow[" + i + "]";
        JsonNode entry = allow.get(i);
        if (!entry.isTextual() || entry.textValue().isBlank() || entry.textValue().length() > 253) {
          f.error(at, "must be a CIDR block, an address or a host name");
          continue;
        }
        String text = entry.textValue().strip();
        SettingsErrors errors = new SettingsErrors();
        OutboundPolicy one = OutboundPolicy.parse(List.of(text), at, errors);
        if (!errors.isEmpty() || text.indexOf(',') >= 0) {
          f.error(at, "must be a CIDR block (10.1.0.0/16), an address or a host name");
        } else if (!ceiling.notCovered(one).isEmpty()) {
          f.error(
              at,
              "is not within the deployment's "
                  + OutboundPolicy.SETTING
                  + " ("
                  + ceiling.describe()
                  + "): an operator must open it there first");
        } else {
          entries.add(text);
        }
      }
    }
    JsonNode keep = f.get("keepResponse");
    if (keep != null && !keep.isBoolean()) {
      f.error("keepResponse", "must be true or false");
    }
    violations.throwIfAny();
    return new Egress(entries, keep != null && keep.booleanValue());
  }

  private static Quota quota(Fields f) {
    f.rejectUnknown(QUOTA_FIELDS);
    Integer rate = f.integer("submitsPerSecond", 1, MAX_RATE);
    Integer burst = f.integer("burst", 1, MAX_RATE);
    if (burst != null && !f.has("submitsPerSecond")) {
      f.error("burst", "needs submitsPerSecond");
    }
    Long maxPending = longValue(f, "maxPending", 0, MAX_PENDING);
    Integer maxPayloadBytes = f.integer("maxPayloadBytes", 1, Integer.MAX_VALUE);
    Integer maxRunning = f.integer("maxRunning", 1, MAX_RUNNING);
    Duration maxTimeout = f.duration("maxTimeout", true);
    if (maxTimeout != null && maxTimeout.toMillis() < 1) {
      f.error("maxTimeout", "must be at least a millisecond");
    }
    if (rate == null) {
      burst = null;
    } else if (burst == null) {
      burst = rate;
    }
    return f.errorCount() > 0
        ? null
        : new Quota(rate, burst, maxPending, maxPayloadBytes, maxRunning, maxTimeout);
  }

  private static Long longValue(Fields f, String name, long min, long max) {
    JsonNode value = f.get(name);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      f.error(name, "must be an integer");
      return null;
    }
    long n = value.longValue();
    if (n < min || n > max) {
      f.error(name, "must be between " + min + " and " + max);
      return null;
    }
    return n;
  }
}
