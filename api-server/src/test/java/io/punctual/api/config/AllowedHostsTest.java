package io.punctual.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AllowedHostsTest {
  private static final int PORT = 8080;

  private static boolean none(String host) {
    return AllowedHosts.NONE.allows(host, "127.0.0.1", PORT, false);
  }

  @ParameterizedTest(name = "[{index}] '{0}'")
  @ValueSource(
      strings = {
        "localhost:8080",
        "LOCALHOST:8080",
        "localhost.:8080",
        "127.0.0.1:8080",
        "[::1]:8080",
        "[0:0:0:0:0:0:0:1]:8080",
        "[::ffff:127.0.0.1]:8080"
      })
  void theLoopbackNamesAtTheServersPortAreThisServer(String host) {
    assertThat(none(host)).isTrue();
  }

  @ParameterizedTest(name = "[{index}] '{0}'")
  @ValueSource(
      strings = {
        "evil.example:8080",
        "evil.example",
        "localhost",
        "localhost:8081",
        "localhost:80",
        "127.0.0.1",
        "127.0.0.2:8080",
        "127.1:8080",
        "2130706433:8080",
        "127.000.000.001:8080",
        "localhost.evil.example:8080",
        "localhost:8080.evil.example",
        "localhost:8080@evil.example",
        "user@localhost:8080",
        "::1:8080",
        "[::1:8080",
        "[::1]8080",
        "[::2]:8080",
        "[localhost]:8080",
        "[.::1]:8080",
        "[::1::2]:8080",
        "[::1%25lo]:8080",
        "localhost:+8080",
        "localhost:08080x",
        "localhost:0",
        "localhost:65536",
        "local host:8080",
        "",
        " "
      })
  void anythingElseIsNot(String host) {
    assertThat(none(host)).isFalse();
  }

  @Test
  void noHostIsNot() {
    assertThat(none(null)).isFalse();
  }

  @Test
  void theAddressTheRequestArrivedOnIsThisServerAtItsPort() {
    assertThat(AllowedHosts.NONE.allows("10.1.2.3:8080", "10.1.2.3", PORT, false)).isTrue();
    assertThat(AllowedHosts.NONE.allows("10.1.2.3:8081", "10.1.2.3", PORT, false)).isFalse();
    assertThat(AllowedHosts.NONE.allows("10.1.2.4:8080", "10.1.2.3", PORT, false)).isFalse();
    assertThat(AllowedHosts.NONE.allows("[fd00::5]:8080", "fd00:0:0:0:0:0:0:5", PORT, false))
        .isTrue();
    assertThat(AllowedHosts.NONE.allows("[fd00::5]:8080", "[fd00::5]", PORT, false)).isTrue();
    assertThat(AllowedHosts.NONE.allows("[fe80::1]:8080", "fe80:0:0:0:0:0:0:1%eth0", PORT, false))
        .isTrue();
  }

  @Test
  void aHostWithoutAPortMeansTheSchemesDefault() {
    assertThat(AllowedHosts.NONE.allows("localhost", "127.0.0.1", 80, false)).isTrue();
    assertThat(AllowedHosts.NONE.allows("localhost", "127.0.0.1", 443, true)).isTrue();
    assertThat(AllowedHosts.NONE.allows("localhost", "127.0.0.1", 443, false)).isFalse();
  }

  @Test
  void configuredNamesAreTakenAtAnyPortOrAtTheirOwn() {
    AllowedHosts hosts =
        AllowedHosts.of(
            List.of("Punctual.Internal.", "api.example.test:9999", "[fd00::7]", "10.0.0.5:80"));

    assertThat(hosts.allows("punctual.internal", "10.9.9.9", PORT, false)).isTrue();
    assertThat(hosts.allows("PUNCTUAL.internal:1234", "10.9.9.9", PORT, false)).isTrue();
    assertThat(hosts.allows("api.example.test:9999", "10.9.9.9", PORT, false)).isTrue();
    assertThat(hosts.allows("api.example.test:8080", "10.9.9.9", PORT, false)).isFalse();
    assertThat(hosts.allows("api.example.test", "10.9.9.9", PORT, false)).isFalse();
    assertThat(hosts.allows("[fd00:0::7]:8443", "10.9.9.9", PORT, false)).isTrue();
    assertThat(hosts.allows("10.0.0.5", "10.9.9.9", PORT, false)).isTrue();
    assertThat(hosts.allows("other.internal:8080", "10.9.9.9", PORT, false)).isFalse();
    assertThat(hosts.allows("punctual.internal.evil.example", "10.9.9.9", PORT, false)).isFalse();
    assertThat(hosts.describe())
        .isEqualTo("punctual.internal, api.example.test:9999, [fd00:0:0:0:0:0:0:7], 10.0.0.5:80");
    assertThat(AllowedHosts.NONE.describe()).isEqualTo("(none)");
  }

  @Test
  void badEntriesAreNamedByTheirPositionNeverQuoted() {
    SettingsErrors errors = new SettingsErrors();
    AllowedHosts.parse(
        List.of("ok.example", "http://x.example", "x.example:99999", "::1", "a b", ""), errors);

    assertThat(errors.messages())
        .containsExactly(
            "api.allowedHosts[1] is not a host name or an IP address (an IPv6 one in brackets),"
                + " with an optional :port",
            "api.allowedHosts[2] is not a host name or an IP address (an IPv6 one in brackets),"
                + " with an optional :port",
            "api.allowedHosts[3] is not a host name or an IP address (an IPv6 one in brackets),"
                + " with an optional :port",
            "api.allowedHosts[4] is not a host name or an IP address (an IPv6 one in brackets),"
                + " with an optional :port",
            "api.allowedHosts[5] is not a host name or an IP address (an IPv6 one in brackets),"
                + " with an optional :port");
    assertThatThrownBy(() -> AllowedHosts.of(List.of("bad host")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("api.allowedHosts[0]");
  }

  @Test
  void theApiSettingsValidateTheList() {
    ApiSettings settings = new ApiSettings();
    assertThat(settings.allowedHosts).isEmpty();
    settings.allowedHosts = List.of("punctual.internal:8080", "not a host");
    SettingsErrors errors = new SettingsErrors();
    settings.validate(errors);
    assertThat(errors.messages()).singleElement().asString().startsWith("api.allowedHosts[1] ");
  }
}
