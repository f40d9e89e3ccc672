package io.punctual.deploy.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every built-in Kubernetes resource of {@code deploy/k8s} (base, components, the overlay's patch
 * files, and the Secret its secretGenerator makes, with the keys of its template) against the
 * Kubernetes API's schema, offline: the models of the official Java client (generated from the
 * API's OpenAPI document, Kubernetes 1.32) refuse a field the API does not define, a required field
 * missing and a value of the wrong type, as {@code kubectl apply}'s validation would. KEDA's
 * ScaledObject and TriggerAuthentication are custom resources: no schema of theirs is checked here
 * ({@code DeployFilesTest} checks what Punctual relies on in them).
 */
class KubernetesSchemaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MODELS = "io.kubernetes.client.openapi.models.";

  /** Each resource of every YAML file under deploy/k8s, but the kustomizations themselves. */
  private static Map<String, Map<String, Object>> manifests() throws Exception {
    Map<String, Map<String, Object>> all = new LinkedHashMap<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(DeployFiles.k8s())) {
      files =
          walk.filter(p -> p.toString().endsWith(".yaml"))
              .filter(p -> !p.getFileName().toString().equals("kustomization.yaml"))
              .sorted()
              .toList();
    }
    for (Path file : files) {
      for (Map<String, Object> resource : DeployFiles.documents(file)) {
        all.put(
            DeployFiles.k8s().relativize(file)
                + ": "
                + resource.get("kind")
                + "/"
                + DeployFiles.at(resource, "metadata", "name"),
            resource);
      }
    }
    // and the Secrets kustomizations generate, with the keys their templates name
    List<Path> kustomizations;
    try (Stream<Path> walk = Files.walk(DeployFiles.k8s())) {
      kustomizations =
          walk.filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
              .sorted()
              .toList();
    }
    for (Path kustomization : kustomizations) {
      for (DeployFiles.GeneratedSecret secret :
          DeployFiles.generatedSecrets(kustomization.getParent())) {
        Map<String, Object> generated = new LinkedHashMap<>();
        generated.put("apiVersion", "v1");
        generated.put("kind", "Secret");
        generated.put("metadata", Map.of("name", secret.name()));
        generated.put("type", "Opaque");
        Map<String, Object> data = new LinkedHashMap<>();
        secret.keys().forEach(key -> data.put(key, ""));
        generated.put("stringData", data);
        all.put(
            DeployFiles.k8s().relativize(kustomization)
                + " (secretGenerator): Secret/"
                + secret.name(),
            generated);
      }
    }
    return all;
  }

  /** The model class of a built-in kind at its API version, or null for a custom resource. */
  private static Class<?> model(Map<String, Object> resource) {
    String apiVersion = String.valueOf(resource.get("apiVersion"));
    String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    if (!List.of("", "apps", "batch", "policy", "autoscaling").contains(group)) {
      return null;
    }
    String name =
        Character.toUpperCase(version.charAt(0)) + version.substring(1) + resource.get("kind");
    try {
      return Class.forName(MODELS + name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("no Kubernetes model " + name + " for " + apiVersion, e);
    }
  }

  /** Validates {@code resource} against its model's schema; throws what the model refuses. */
  private static void validate(Class<?> model, Map<String, Object> resource) throws Throwable {
    String json = JSON.writeValueAsString(resource);
    JsonElement element = JsonParser.parseString(json);
    Method validate = model.getMethod("validateJsonElement", JsonElement.class);
    Method fromJson = model.getMethod("fromJson", String.class);
    try {
      validate.invoke(null, element);
      // typing (integers, quantities, int-or-string ports) as the API server reads them
      assertThat(fromJson.invoke(null, json)).isNotNull();
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void everyBuiltInResourceFitsTheKubernetesSchema() throws Throwable {
    List<String> checked = new ArrayList<>();
    List<String> custom = new ArrayList<>();
    for (Map.Entry<String, Map<String, Object>> e : manifests().entrySet()) {
      Class<?> model = model(e.getValue());
      if (model == null) {
        custom.add(e.getKey());
        continue;
      }
      try {
        validate(model, e.getValue());
      } catch (Exception | AssertionError failure) {
        throw new AssertionError(e.getKey() + ": " + failure.getMessage(), failure);
      }
      checked.add(e.getKey());
    }
    assertThat(checked)
        .anyMatch(k -> k.endsWith("Deployment/punctual-worker"))
        .anyMatch(k -> k.endsWith("CronJob/punctual-reaper"))
        .anyMatch(k -> k.endsWith("Job/punctual-migrate"))
        .anyMatch(k -> k.endsWith("PodDisruptionBudget/punctual-api"))
        .anyMatch(k -> k.endsWith("Service/punctual-api"))
        .anyMatch(k -> k.endsWith("Secret/punctual-secrets"))
        .hasSizeGreaterThanOrEqualTo(13); // 11 in the base, the overlay's ConfigMap and Secret
    assertThat(custom)
        .containsExactlyInAnyOrder(
            "components/keda/scaledobject.yaml: ScaledObject/punctual-worker",
            "components/keda/scaledobject.yaml: TriggerAuthentication/punctual-worker-postgres");
  }

  @Test
  void theSchemaRefusesAMisspelledFieldAndAMistypedValue() throws Exception {
    Map<String, Object> worker =
        DeployFiles.find(
            DeployFiles.resources(DeployFiles.k8s().resolve("base")),
            "Deployment",
            "punctual-worker");
    Map<String, Object> misspelled = copy(worker);
    DeployFiles.map(DeployFiles.at(misspelled, "spec", "template", "spec"))
        .put("terminationGracePeriod", 45);
    assertThatThrownBy(() -> validate(model(misspelled), misspelled))
        .hasMessageContaining("terminationGracePeriod");

    Map<String, Object> mistyped = copy(worker);
    DeployFiles.map(DeployFiles.at(mistyped, "spec")).put("replicas", "two");
    assertThatThrownBy(() -> validate(model(mistyped), mistyped)).isNotNull();
  }

  private static Map<String, Object> copy(Map<String, Object> resource) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = JSON.readValue(JSON.writeValueAsString(resource), Map.class);
    return copy;
  }
}
