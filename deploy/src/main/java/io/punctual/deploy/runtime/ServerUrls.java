package io.punctual.deploy.runtime;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The base URLs a started server really serves (so port 0, a random port, shows its actual number).
 *
 * @param application base URL of the application connector, or null if it has none
 * @param admin base URL of the admin pages (healthcheck, metrics), or null if it has none
 */
public record ServerUrls(String application, String admin) {

  public static ServerUrls of(Server server, ServerFactory factory) {
    List<ServerConnector> app = new ArrayList<>();
    List<ServerConnector> admin = new ArrayList<>();
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector sc) {
        String name = sc.getName() == null ? "" : sc.getName();
        (name.startsWith("admin") ? admin : app).add(sc);
      }
    }
    if (factory instanceof SimpleServerFactory simple && !app.isEmpty()) {
      String base = base(app.get(0));
      return new ServerUrls(
          join(base, simple.getApplicationContextPath()), join(base, simple.getAdminContextPath()));
    }
    String appPath = "/";
    String adminPath = "/";
    if (factory instanceof DefaultServerFactory dflt) {
      appPath = dflt.getApplicationContextPath();
      adminPath = dflt.getAdminContextPath();
    }
    return new ServerUrls(
        app.isEmpty() ? null : join(base(app.get(0)), appPath),
        admin.isEmpty() ? null : join(base(admin.get(0)), adminPath));
  }

  private static String base(ServerConnector connector) {
    String host = connector.getHost();
    if (host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::")) {
      host = "localhost";
    } else if (host.contains(":")) {
      host = "[" + host + "]";
    }
    String scheme =
        connector.getDefaultConnectionFactory() != null
                && connector
                    .getDefaultConnectionFactory()
                    .getProtocol()
                    .toLowerCase(Locale.ROOT)
                    .contains("ssl")
            ? "https"
            : "http";
    return scheme + "://" + host + ":" + connector.getLocalPort();
  }

  private static String join(String base, String path) {
    if (path == null || path.isEmpty() || path.equals("/")) {
      return base;
    }
    return base + (path.startsWith("/") ? path : "/" + path).replaceAll("/+$", "");
  }
}
