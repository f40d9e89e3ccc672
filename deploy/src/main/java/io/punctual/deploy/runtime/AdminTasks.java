package io.punctual.deploy.runtime;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.tasks.TaskServlet;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee10.servlet.ServletHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.ServletMapping;

/**
 * Takes Dropwizard's admin tasks off the admin port. Dropwizard's {@code AdminEnvironment} always
 * registers a {@link TaskServlet} at {@code /tasks/*} with {@code gc} and {@code log-level} (and
 * any task added later): anyone who reaches the admin port could make a process collect garbage in
 * a loop or turn a logger to {@code TRACE} (the callback client's wire log would then write
 * callback header values, secrets, to the log). Punctual uses none of them, so the servlet and its
 * mappings are removed before the server starts; {@code /tasks/...} is then a 404 like any path the
 * admin port does not serve. Health checks, {@code /ping}, {@code /metrics} and {@code /prometheus}
 * stay.
 */
public final class AdminTasks {
  private AdminTasks() {}

  /** Removes the task servlet from {@code environment}'s admin context; call before the start. */
  public static void remove(Environment environment) {
    ServletHandler handler = environment.getAdminContext().getServletHandler();
    Set<String> tasks =
        Arrays.stream(handler.getServlets())
            .filter(
                h ->
                    h.getHeldClass() != null
                        && TaskServlet.class.isAssignableFrom(h.getHeldClass()))
            .map(ServletHolder::getName)
            .collect(Collectors.toSet());
    if (tasks.isEmpty()) {
      return;
    }
    handler.setServletMappings(
        Arrays.stream(handler.getServletMappings())
            .filter(m -> !tasks.contains(m.getServletName()))
            .toArray(ServletMapping[]::new));
    handler.setServlets(
        Arrays.stream(handler.getServlets())
            .filter(h -> !tasks.contains(h.getName()))
            .toArray(ServletHolder[]::new));
  }
}
