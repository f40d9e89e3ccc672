package io.punctual.deploy.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the configuration comes from: the bundled {@code punctual.yml}, with a user's YAML file (if
 * one is named on the command line) laid over it, key by key. {@code ${VAR}} and {@code
 * ${VAR:-default}} are replaced by environment variables in both layers before they are merged, so
 * a user file only needs the settings it changes.
 */
public final class LayeredConfigSource implements ConfigurationSourceProvider {
  /** Class-path name of the bundled configuration. */
  public static final String BUNDLED_RESOURCE = "punctual.yml";

  /** The value of the file argument when none is given. */
  public static final String BUNDLED = "(bundled punctual.yml)";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final ConfigurationSourceProvider resources;
  private final ConfigurationSourceProvider files;

  public LayeredConfigSource() {
    EnvironmentVariableSubstitutor substitutor = new EnvironmentVariableSubstitutor(false);
    this.resources =
        new SubstitutingSourceProvider(new ResourceConfigurationSourceProvider(), substitutor);
    this.files = new SubstitutingSourceProvider(new FileConfigurationSourceProvider(), substitutor);
  }

  @Override
  public InputStream open(String path) throws IOException {
    if (path == null || BUNDLED.equals(path)) {
      return resources.open(BUNDLED_RESOURCE);
    }
    if (!Files.isRegularFile(Path.of(path))) {
      throw new FileNotFoundException("configuration file not found: " + path);
    }
    JsonNode base;
    try (InputStream in = resources.open(BUNDLED_RESOURCE)) {
      base = YAML.readTree(in);
    }
    JsonNode overlay;
    try (InputStream in = files.open(path)) {
      overlay = YAML.readTree(in);
    }
    JsonNode merged = merge(base, overlay);
    return new ByteArrayInputStream(YAML.writeValueAsBytes(merged));
  }

  /**
   * {@code overlay} laid over {@code base}: objects merge key by key, anything else (scalars,
   * lists) in the overlay replaces the base's value.
   */
  static JsonNode merge(JsonNode base, JsonNode overlay) {
    if (overlay == null || overlay.isMissingNode()) {
      return base;
    }
    if (!(base instanceof ObjectNode baseObject) || !overlay.isObject()) {
      return overlay;
    }
    ObjectNode result = baseObject.deepCopy();
    for (Map.Entry<String, JsonNode> field : overlay.properties()) {
      JsonNode existing = result.get(field.getKey());
      result.set(
          field.getKey(), existing == null ? field.getValue() : merge(existing, field.getValue()));
    }
    return result;
  }
}
