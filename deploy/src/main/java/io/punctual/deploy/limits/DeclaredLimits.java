package io.punctual.deploy.limits;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.context.Authorizer;
import io.punctual.api.limits.LimitRequestParser;
import io.punctual.api.problem.ProblemException;
import io.punctual.common.config.SettingsErrors;
import io.punctual.requests.FieldError;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.store.limit.Limit;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.limit.TypeLimitedException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits declared under {@code limits} in the configuration file: each a {@code PUT
 * /api/v1/limits/{name}} body with its {@code name} and an optional {@code namespace} (default
 * {@code api.defaultNamespace}), validated by the parser the API uses. Each worker registers them
 * when it starts (an upsert by namespace and name), so the file wins over an API change at the next
 * start of a worker.
 */
public final class DeclaredLimits {
  private static final Logger log = LoggerFactory.getLogger(DeclaredLimits.class);

  private DeclaredLimits() {}

  /** The declared limits, or an error naming every bad field ({@code limits[0].concurrency}). */
  public static List<Limit> parse(List<ObjectNode> declared, String defaultNamespace) {
    List<Limit> out = new ArrayList<>();
    SettingsErrors errors = new SettingsErrors();
    for (int i = 0; declared != null && i < declared.size(); i++) {
      String path = "limits[" + i + "]";
      ObjectNode body = declared.get(i).deepCopy();
      JsonNode ns = body.remove("namespace");
      JsonNode name = body.remove("name");
      String namespace = defaultNamespace;
      if (ns != null && !ns.isNull()) {
        if (!ns.isTextual() || !Authorizer.isValidNamespace(ns.textValue())) {
          errors.add(path + ".namespace must be 1 to 100 letters, digits, '.', '_', ':' or '-'");
          continue;
        }
        namespace = ns.textValue();
      }
      if (name == null || !name.isTextual()) {
        errors.add(path + ".name is required");
        continue;
      }
      try {
        out.add(LimitRequestParser.parse(namespace, name.textValue(), body, path + ".", true));
      } catch (InvalidFieldsException e) {
        for (FieldError f : e.errors()) {
          errors.add((f.field() == null ? path : f.field()) + ": " + f.message());
        }
      } catch (FieldTooLargeException e) {
        errors.add(path + ": " + e.detail());
      } catch (ProblemException e) {
        List<FieldError> fields = e.problem().errors();
        if (fields == null || fields.isEmpty()) {
          errors.add(path + ": " + e.problem().detail());
        } else {
          for (FieldError f : fields) {
            errors.add((f.field() == null ? path : f.field()) + ": " + f.message());
          }
        }
      }
    }
    errors.throwIfAny();
    return out;
  }

  /** Registers the limits (idempotent); a type limited already by another name is logged. */
  public static void register(LimitStore store, List<Limit> limits) {
    for (Limit limit : limits) {
      try {
        store.put(limit);
      } catch (TypeLimitedException e) {
        log.warn(
            "declared limit {} not registered in namespace {}: {}",
            limit.name(),
            limit.namespace(),
            e.getMessage());
      }
    }
    if (!limits.isEmpty()) {
      log.info("{} declared limits registered", limits.size());
    }
  }
}
