package io.punctual.deploy.runtime;

import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs handlers for POSIX signals through {@code sun.misc.Signal} (module jdk.unsupported),
 * reached reflectively so the build stays free of internal-API warnings. Used so that SIGTERM and
 * Ctrl-C stop Punctual's parts in order before the JVM's shutdown hooks (which the embedded
 * PostgreSQL and Redis libraries install, and which would otherwise race the worker) run.
 */
final class Signals {
  private static final Logger log = LoggerFactory.getLogger(Signals.class);

  private Signals() {}

  /** Returns false if the signal cannot be handled here (the JVM's default handling stays). */
  static boolean handle(String name, Runnable action) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object handler =
          Proxy.newProxyInstance(
              Signals.class.getClassLoader(),
              new Class<?>[] {handlerClass},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "handle" -> {
                      action.run();
                      yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "punctual-" + name + "-handler";
                    default -> null;
                  });
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.debug("cannot handle SIG{}: {}", name, e.toString());
      return false;
    }
  }
}
