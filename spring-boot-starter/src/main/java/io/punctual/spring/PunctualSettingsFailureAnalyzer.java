package io.punctual.spring;

import io.punctual.common.config.InvalidSettingsException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports wrong Punctual settings at start-up as Spring Boot reports its own ("APPLICATION FAILED
 * TO START"): every wrong property, then what to do, instead of a bean-creation stack trace.
 */
public final class PunctualSettingsFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidSettingsException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingsException cause) {
    StringBuilder description = new StringBuilder("Punctual's settings are wrong:");
    cause.errors().forEach(e -> description.append("\n  - ").append(e));
    return new FailureAnalysis(
        description.toString(),
        "Fix the properties named above; docs/in-your-app.md (Spring Boot) lists every punctual.*"
            + " property with its default and its allowed values.",
        cause);
  }
}
