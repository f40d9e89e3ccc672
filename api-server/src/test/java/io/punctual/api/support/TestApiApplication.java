package io.punctual.api.support;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.api.ApiModule;

/** A Dropwizard application with only the API in it, plus a resource that fails on purpose. */
public class TestApiApplication extends Application<TestApiConfiguration> {
  @Override
  public void run(TestApiConfiguration configuration, Environment environment) {
    ApiModule.register(
        environment,
        configuration.stores,
        configuration.api,
        configuration.auth,
        configuration.signingSecrets);
    environment.jersey().register(new FailingResource());
  }
}
