package io.punctual.api.console;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.assets.AssetServlet;
import jakarta.servlet.DispatcherType;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

/**
 * The web console at {@code /ui} on the API port: static ES modules, CSS and one HTML page from the
 * jar ({@value #RESOURCES} on the class path), served with {@link ConsoleHeaders}. The pages call
 * the API like any client, with the API key the person signed in with; the assets themselves need
 * no key.
 */
public final class Console {
  /** Where the assets are on the class path. */
  public static final String RESOURCES = "/punctual-console";

  /** Where the console is served. */
  public static final String PATH = "/ui";

  private Console() {}

  public static void register(Environment env) {
    env.servlets()
        .addServlet(
            "punctual-console",
            new AssetServlet(RESOURCES, PATH, "index.html", StandardCharsets.UTF_8))
        .addMapping(PATH + "/*");
    env.servlets()
        .addFilter("punctual-console-headers", new ConsoleHeaders())
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, PATH + "/*");
  }
}
