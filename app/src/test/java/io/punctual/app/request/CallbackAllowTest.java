package io.punctual.app.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.client.Callback;
import io.punctual.client.JobRequest;
import io.punctual.common.config.InvalidSettingsException;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A transactional submit's {@code callback.url} may name what the API's {@code worker.http.allow}
 * opens when the app's {@link JobDefaults} carry the same list, and only that: the same request is
 * refused or taken on both paths.
 */
class CallbackAllowTest {
  private static JobRequest withCallback(String url) {
    return JobRequest.builder("invoice.send").callback(Callback.to(URI.create(url))).build();
  }

  @Test
  void byDefaultAPrivateAddressIsRefusedNamingTheFieldAndTheSetting() {
    JobRequestMapper mapper = new JobRequestMapper(JobDefaults.API);
    assertThatThrownBy(() -> mapper.one(withCallback("http://10.1.2.3/hook")))
        .isInstanceOf(InvalidJobRequestException.class)
        .hasMessageContaining("callback.url")
        .hasMessageContaining("worker.http.allow")
        .satisfies(
            e -> assertThat(((InvalidJobRequestException) e).field()).isEqualTo("callback.url"));
    assertThat(mapper.one(withCallback("https://hooks.example.com/done")).callback()).isNotNull();
  }

  @Test
  void whatTheListOpensIsTakenAndNothingElse() {
    JobRequestMapper mapper =
        new JobRequestMapper(JobDefaults.API.withCallbackAllow(List.of("10.0.0.0/8")));
    assertThat(mapper.one(withCallback("http://10.1.2.3/hook")).callback().get("url").asText())
        .isEqualTo("http://10.1.2.3/hook");
    assertThatThrownBy(() -> mapper.one(withCallback("http://192.168.1.1/hook")))
        .isInstanceOf(InvalidJobRequestException.class)
        .hasMessageContaining("callback.url");
    assertThatThrownBy(() -> mapper.one(withCallback("http://127.0.0.1/hook")))
        .isInstanceOf(InvalidJobRequestException.class)
        .hasMessageContaining("callback.url");
  }

  @Test
  void entriesAreSplitAtCommasAndAWrongOneIsNamed() {
    assertThat(
            JobDefaults.API.withCallbackAllow(List.of(" 10.0.0.0/8 ,fd00::/8", "")).callbackAllow())
        .containsExactly("10.0.0.0/8", "fd00::/8");
    assertThatThrownBy(
            () -> JobDefaults.API.withCallbackAllow(List.of("10.0.0.0/8", "not a host!")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("callbackAllow: \"not a host!\"");
    assertThat(JobDefaults.API.callbackAllow()).isEmpty();
  }
}
