package io.punctual.api.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.ApiModule;
import io.punctual.api.auth.Requires;
import io.punctual.api.auth.Role;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.api.support.JerseyRoutes;
import io.punctual.api.support.JerseyRoutes.Route;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.glassfish.jersey.model.Parameter;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OpenAPI document (kept by hand in {@value #FILE}) against the running application: every
 * route Jersey serves, with its path, query and body, and every field of every representation the
 * API answers and every request object it reads. Anything the application has and the document
 * lacks (or the other way round) fails with a message naming it; docs/api.md ("The OpenAPI
 * document") says how to add a route.
 *
 * <p>Response fields are the ones Jackson writes for the class a schema names in {@code x-java};
 * request fields are the set of known fields the parser rejects others against, the static {@code
 * Set<String>} a schema names in {@code x-punctual-fields} ("class#FIELD").
 */
class OpenApiDocumentIT {
  static final String FILE =
      "api-server/src/main/resources/io/punctual/api/openapi/openapi.json (how to add a route:"
          + " docs/api.md#the-openapi-document)";

  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static JsonNode doc;
  static ObjectMapper mapper;

  @BeforeAll
  static void load() throws IOException {
    mapper = APP.getObjectMapper();
    try (InputStream in = OpenApiResource.class.getResourceAsStream(OpenApiResource.RESOURCE)) {
      doc = mapper.readTree(in);
    }
  }

  @Test
  void isServedAsItIsOnTheClassPathToAViewerKey() throws IOException {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"openapi reader\",\"role\":\"viewer\",\"namespaces\":[\"default\"]}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    String viewer = created.json().get("secret").asText();
    Reply reply = FIXTURE.http().key(viewer).get("/api/v1/openapi.json");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).startsWith("application/json");
    // The very bytes of the resource: nothing of this server (keys, settings, hosts) is added.
    try (InputStream in = OpenApiResource.class.getResourceAsStream(OpenApiResource.RESOURCE)) {
      assertThat(reply.raw().body()).isEqualTo(new String(in.readAllBytes(), "UTF-8"));
    }
    assertThat(reply.json().path("openapi").asText()).isEqualTo("3.1.0");
    assertThat(FIXTURE.http().key(null).get("/api/v1/openapi.json").status()).isEqualTo(401);
  }

  @Test
  void everyRouteIsDocumentedAndNothingElse() {
    Set<String> served = new TreeSet<>();
    JerseyRoutes.of(APP).forEach(r -> served.add(r.key()));
    Set<String> documented = new TreeSet<>();
    doc.path("paths")
        .properties()
        .forEach(
            path ->
                path.getValue()
                    .fieldNames()
                    .forEachRemaining(
                        m -> {
                          if (HTTP_METHODS.contains(m)) {
                            documented.add(m.toUpperCase(Locale.ROOT) + " " + path.getKey());
                          }
                        }));
    List<String> problems = new ArrayList<>();
    served.stream()
        .filter(r -> !documented.contains(r))
        .forEach(r -> problems.add("route " + r + " is served but not in paths"));
    documented.stream()
        .filter(r -> !served.contains(r))
        .forEach(r -> problems.add("route " + r + " is documented but not served"));
    assertNone(problems);
  }

  @Test
  void everyOperationHasTheParametersBodyAndRoleOfItsMethod() {
    List<String> problems = new ArrayList<>();
    for (Route route : JerseyRoutes.of(APP)) {
      JsonNode op = operation(route);
      if (op.isMissingNode()) {
        continue; // reported by everyRouteIsDocumentedAndNothingElse
      }
      ResourceMethod method = route.resourceMethod();
      Set<String> javaParams = new TreeSet<>();
      boolean takesBody = false;
      for (Parameter p : method.getInvocable().getParameters()) {
        switch (p.getSource()) {
          case PATH -> javaParams.add("path " + p.getSourceName());
          case QUERY -> javaParams.add("query " + p.getSourceName());
          case HEADER -> javaParams.add("header " + p.getSourceName());
          case ENTITY -> takesBody = true;
          default -> {}
        }
      }
      Set<String> docParams = new TreeSet<>();
      for (JsonNode p : op.path("parameters")) {
        JsonNode resolved = resolve(p);
        String in = resolved.path("in").asText();
        if (!in.equals("header")) { // headers the filters read (Punctual-Namespace) are extra
          docParams.add(in + " " + resolved.path("name").asText());
        }
      }
      javaParams.removeIf(p -> p.startsWith("header "));
      for (String p : javaParams) {
        if (!docParams.contains(p)) {
          problems.add(route.key() + ": " + p + " parameter missing");
        }
      }
      for (String p : docParams) {
        if (!javaParams.contains(p)) {
          problems.add(route.key() + ": " + p + " parameter documented but not read");
        }
      }
      JsonNode body = op.path("requestBody");
      if (takesBody && body.isMissingNode()) {
        problems.add(route.key() + ": takes a JSON body but has no requestBody");
      }
      if (!takesBody && !body.isMissingNode()) {
        problems.add(route.key() + ": documents a requestBody it does not read");
      }
      if (takesBody
          && !resolve(body.at("/content/application~1json/schema")).has("x-punctual-fields")) {
        problems.add(
            route.key()
                + ": its requestBody schema needs x-punctual-fields naming the parser's set of"
                + " known fields");
      }
      Requires requires = method.getInvocable().getHandlingMethod().getAnnotation(Requires.class);
      String role = requires == null ? "none" : leastRole(requires).wireName();
      if (!op.path("x-punctual-role").asText().equals(role)) {
        problems.add(route.key() + ": x-punctual-role must be " + role);
      }
      if (!op.path("responses").properties().stream().anyMatch(e -> e.getKey().startsWith("2"))) {
        problems.add(route.key() + ": no 2xx response");
      }
    }
    assertNone(problems);
  }

  @Test
  void everyRepresentationIsASchemaWithExactlyItsFields() throws Exception {
    Map<String, List<String>> schemasByClass = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, JsonNode> schema : doc.path("components").path("schemas").properties()) {
      String java = schema.getValue().path("x-java").asText(null);
      if (java == null) {
        continue;
      }
      schemasByClass.computeIfAbsent(java, k -> new ArrayList<>()).add(schema.getKey());
      Class<?> type;
      try {
        type = Class.forName(java);
      } catch (ClassNotFoundException e) {
        problems.add("schema " + schema.getKey() + ": x-java " + java + " is no class");
        continue;
      }
      compare(
          "schema " + schema.getKey() + " (" + java + ")",
          propertiesOf(schema.getValue()),
          jacksonProperties(type),
          problems);
    }
    for (Class<?> type : representations()) {
      if (!schemasByClass.containsKey(type.getName())) {
        problems.add(
            "representation "
                + type.getName()
                + " has no schema (add one to components.schemas with \"x-java\": \""
                + type.getName()
                + "\")");
      }
    }
    assertNone(problems);
  }

  @Test
  void everyRequestObjectIsASchemaWithExactlyTheFieldsItsParserKnows() throws Exception {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, JsonNode> schema : doc.path("components").path("schemas").properties()) {
      JsonNode s = schema.getValue();
      String fields = s.path("x-punctual-fields").asText(null);
      if (s.has("properties") && fields == null && !s.has("x-java")) {
        problems.add(
            "schema "
                + schema.getKey()
                + " names neither x-java (a representation) nor x-punctual-fields (a request)");
      }
      if (fields == null) {
        continue;
      }
      Set<String> known = knownFields(fields, schema.getKey(), problems);
      if (known != null) {
        compare(
            "schema " + schema.getKey() + " (" + fields + ")", propertiesOf(s), known, problems);
      }
    }
    assertNone(problems);
  }

  @Test
  void everyReferenceResolves() {
    List<String> problems = new ArrayList<>();
    refs(doc, problems);
    assertNone(problems);
    assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
  }

  // ---------------------------------------------------------------------------------------------

  private static final Set<String> HTTP_METHODS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options");

  private static JsonNode operation(Route route) {
    return doc.path("paths").path(route.path()).path(route.method().toLowerCase(Locale.ROOT));
  }

  private static Role leastRole(Requires requires) {
    for (Role role : Role.values()) {
      if (role.allows(requires.value())) {
        return role;
      }
    }
    throw new AssertionError("no role allows " + requires.value());
  }

  private static JsonNode resolve(JsonNode node) {
    JsonNode at = node;
    while (at.has("$ref")) {
      at = doc.at(at.path("$ref").asText().substring(1));
    }
    return at;
  }

  private static void refs(JsonNode node, List<String> problems) {
    if (node.has("$ref") && doc.at(node.path("$ref").asText().substring(1)).isMissingNode()) {
      problems.add("$ref " + node.path("$ref").asText() + " resolves to nothing");
    }
    for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
      refs(it.next(), problems);
    }
  }

  private static Set<String> propertiesOf(JsonNode schema) {
    Set<String> names = new TreeSet<>();
    schema.path("properties").fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static Set<String> jacksonProperties(Class<?> type) {
    JavaType javaType = mapper.getTypeFactory().constructType(type);
    return mapper.getSerializationConfig().introspect(javaType).findProperties().stream()
        .filter(BeanPropertyDefinition::couldSerialize)
        .map(BeanPropertyDefinition::getName)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @SuppressWarnings("unchecked")
  private static Set<String> knownFields(String ref, String schema, List<String> problems) {
    int hash = ref.indexOf('#');
    try {
      Field field = Class.forName(ref.substring(0, hash)).getDeclaredField(ref.substring(hash + 1));
      field.setAccessible(true);
      return new TreeSet<>((Set<String>) field.get(null));
    } catch (ReflectiveOperationException | RuntimeException e) {
      problems.add("schema " + schema + ": x-punctual-fields " + ref + " is no static field: " + e);
      return null;
    }
  }

  private static void compare(
      String what, Set<String> documented, Set<String> real, List<String> problems) {
    for (String name : real) {
      if (!documented.contains(name)) {
        problems.add(what + ": field " + name + " missing from properties");
      }
    }
    for (String name : documented) {
      if (!real.contains(name)) {
        problems.add(what + ": field " + name + " documented but not in the class");
      }
    }
  }

  /**
   * What the API answers with: the records of api-server named *Representation or *Page, the types
   * the resource methods return, and the records of io.punctual these hold (lists unwrapped).
   */
  private static Set<Class<?>> representations() throws IOException, URISyntaxException {
    Set<Class<?>> roots = new LinkedHashSet<>();
    Path classes =
        Path.of(ApiModule.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = classes.relativize(file).toString();
        if (!name.endsWith(".class")) {
          continue;
        }
        String className = name.substring(0, name.length() - 6).replace('/', '.');
        String simple = className.substring(className.lastIndexOf('.') + 1);
        if (simple.endsWith("Representation") || simple.endsWith("Page")) {
          try {
            Class<?> type = Class.forName(className);
            if (type.isRecord()) {
              roots.add(type);
            }
          } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
          }
        }
      }
    }
    for (Route route : JerseyRoutes.of(APP)) {
      addType(
          route.resourceMethod().getInvocable().getHandlingMethod().getGenericReturnType(), roots);
    }
    Set<Class<?>> all = new LinkedHashSet<>();
    for (Class<?> root : roots) {
      reach(root, all);
    }
    all.remove(com.fasterxml.jackson.databind.JsonNode.class);
    return all;
  }

  private static void reach(Class<?> type, Set<Class<?>> all) {
    if (!type.isRecord() || !type.getName().startsWith("io.punctual.") || !all.add(type)) {
      return;
    }
    for (RecordComponent c : type.getRecordComponents()) {
      Set<Class<?>> inner = new LinkedHashSet<>();
      addType(c.getGenericType(), inner);
      inner.forEach(t -> reach(t, all));
    }
  }

  /** The classes in {@code type}: itself, or a generic type's arguments. */
  private static void addType(Type type, Set<Class<?>> out) {
    if (type instanceof Class<?> c) {
      if (c.isRecord()) {
        out.add(c);
      }
    } else if (type instanceof ParameterizedType p) {
      addType(p.getRawType(), out);
      for (Type arg : p.getActualTypeArguments()) {
        addType(arg, out);
      }
    }
  }

  private static void assertNone(List<String> problems) {
    assertThat(problems)
        .as(
            "The OpenAPI document %s differs from the application:%n  %s",
            FILE, String.join(System.lineSeparator() + "  ", problems))
        .isEmpty();
  }
}
