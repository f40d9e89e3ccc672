package io.punctual.api.support;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.dropwizard.core.Configuration;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.config.AuthSettings;
import io.punctual.queue.Stores;
import io.punctual.store.secret.SigningSecrets;

/** Configuration of the in-process test application: the stores are handed over directly. */
public class TestApiConfiguration extends Configuration {
  @JsonIgnore public Stores stores;
  @JsonIgnore public ApiSettings api = new ApiSettings();
  @JsonIgnore public AuthSettings auth = new AuthSettings();
  @JsonIgnore public SigningSecrets signingSecrets;
}
