package io.punctual.outbound.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.config.SettingsErrors;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OutboundPolicyTest {
  private static InetAddress ip(String literal) {
    return IpLiteral.parse(literal).orElseThrow(() -> new AssertionError("not an IP: " + literal));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "127.0.0.1|loopback",
        "127.255.255.254|loopback",
        "::1|loopback",
        "10.0.0.1|private",
        "10.255.255.255|private",
        "172.16.0.1|private",
        "172.31.255.255|private",
        "192.168.0.1|private",
        "fc00::1|private (unique local)",
        "fdff:ffff::1|private (unique local)",
        "fec0::1|private (site-local)",
        "169.254.169.254|link-local (cloud metadata)",
        "169.254.0.1|link-local (cloud metadata)",
        "fe80::1|link-local",
        "febf::1|link-local",
        "0.0.0.0|unspecified",
        "0.1.2.3|unspecified",
        "::|unspecified",
        "224.0.0.1|multicast",
        "239.255.255.255|multicast",
        "ff02::1|multicast",
        "240.0.0.1|reserved (incl. broadcast)",
        "255.255.255.255|reserved (incl. broadcast)",
        "100.64.0.1|reserved (shared address space)",
        "100.127.255.255|reserved (shared address space)",
        "192.0.0.8|reserved (IETF protocol assignments)",
        "192.0.2.1|reserved (documentation)",
        "198.18.0.1|reserved (benchmarking)",
        "198.19.255.255|reserved (benchmarking)",
        "198.51.100.7|reserved (documentation)",
        "203.0.113.9|reserved (documentation)",
        "2001:db8::1|reserved (documentation)",
        "100::1|reserved (discard-only)",
        "::ffff:127.0.0.1|loopback",
        "::ffff:169.254.169.254|link-local (cloud metadata)",
        "::127.0.0.1|loopback",
        "::10.1.2.3|private",
        "64:ff9b::a9fe:a9fe|link-local (cloud metadata)",
        "2002:7f00:1::|loopback",
        "2002:c0a8:101::1|private",
        "64:ff9b:1::1|reserved (local-use NAT64)",
        "64:ff9b:1::a00:1|reserved (local-use NAT64)",
        "64:ff9b:1:ffff:ffff:ffff:ffff:ffff|reserved (local-use NAT64)",
        "2001::1|reserved (Teredo)",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2|reserved (Teredo)",
        "2001:0:ffff:ffff:ffff:ffff:ffff:ffff|reserved (Teredo)",
        "::ffff:0:10.1.2.3|reserved (IPv4-translated)",
        "::ffff:0:127.0.0.1|reserved (IPv4-translated)",
        "::ffff:0:8.8.8.8|reserved (IPv4-translated)"
      })
  void eachSpecialRangeIsKnownForWhatItIs(String address, String kind) {
    assertThat(SpecialAddresses.kind(ip(address))).contains(kind);
    assertThat(OutboundPolicy.DEFAULT.refusal(null, ip(address))).isPresent();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "93.184.215.14",
        "8.8.8.8",
        "1.1.1.1",
        "172.32.0.1",
        "172.15.255.255",
        "100.128.0.1",
        "100.63.255.255",
        "192.169.0.1",
        "169.253.255.255",
        "223.255.255.255",
        "11.0.0.1",
        "2606:4700:4700::1111",
        "2a00:1450:4001::200e",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "64:ff9b:2::1",
        "64:ff9b:0:1::1",
        "2001:4860:4860::8888",
        "2001:1::1",
        "::fffe:0:808:808"
      })
  void publicAddressesAreAllowed(String address) {
    assertThat(SpecialAddresses.kind(ip(address))).isEmpty();
    assertThat(OutboundPolicy.DEFAULT.refusal(null, ip(address))).isEmpty();
  }

  @Test
  void theRefusalNamesTheAddressAndItsKind() {
    assertThat(OutboundPolicy.DEFAULT.refusal("localhost", ip("127.0.0.1")))
        .contains("127.0.0.1, a loopback address");
    assertThat(OutboundPolicy.DEFAULT.refusal(null, ip("::127.0.0.1")))
        .contains("0:0:0:0:0:0:7f00:1 (127.0.0.1), a loopback address");
    assertThat(OutboundPolicy.DEFAULT.refusal(null, ip("10.0.0.1")))
        .contains("10.0.0.1, a private address");
  }

  @Test
  void translatorAndTunnelBlocksAreRefusedUnlessAllowed() {
    // an IPv4-translated address (RFC 2765) of a private IPv4 address: refused, its IPv4 named
    assertThat(OutboundPolicy.DEFAULT.refusal(null, ip("::ffff:0:10.0.0.1")))
        .contains("0:0:0:0:ffff:0:a00:1 (10.0.0.1), a reserved (IPv4-translated) address");
    assertThat(SpecialAddresses.embeddedIpv4(ip("::ffff:0:192.168.1.1")))
        .contains(ip("192.168.1.1"));
    assertThat(OutboundPolicy.DEFAULT.literalRefusal("[::ffff:0:10.0.0.1]")).isPresent();
    assertThat(OutboundPolicy.DEFAULT.literalRefusal("[::ffff:0:a00:1]")).isPresent();
    assertThat(OutboundPolicy.DEFAULT.literalRefusal("[64:ff9b:1::a9fe:a9fe]")).isPresent();
    assertThat(OutboundPolicy.DEFAULT.literalRefusal("[2001:0:4136:e378:8000:63bf:3fff:fdd2]"))
        .isPresent();

    // opened by name: the block itself, or (translated) the IPv4 block it carries
    OutboundPolicy opened = OutboundPolicy.of("64:ff9b:1::/48", "2001::/32", "10.0.0.0/8");
    assertThat(opened.refusal(null, ip("64:ff9b:1::a00:1"))).isEmpty();
    assertThat(opened.refusal(null, ip("2001:0:4136:e378:8000:63bf:3fff:fdd2"))).isEmpty();
    assertThat(opened.refusal(null, ip("::ffff:0:10.0.0.1"))).isEmpty();
    assertThat(opened.refusal(null, ip("::ffff:0:192.168.0.1"))).isPresent();
    assertThat(opened.refusal(null, ip("::ffff:0:8.8.8.8"))).isPresent();
  }

  @Test
  void everySpellingOfAForbiddenLiteralIsRefused() {
    for (String host :
        List.of(
            "127.0.0.1",
            "2130706433",
            "0x7f000001",
            "0X7F000001",
            "0177.0.0.1",
            "0177.0.0.01",
            "127.1",
            "127.0.1",
            "0x7f.1",
            "017700000001",
            "127.0.0.1.",
            "[::1]",
            "::1",
            "[0:0:0:0:0:0:0:1]",
            "[::ffff:127.0.0.1]",
            "[::ffff:7f00:1]",
            "[::127.0.0.1]",
            "[fe80::1%25eth0]",
            "0",
            "0x0",
            "[::]",
            "2852039166", // 169.254.169.254
            "0xa9.0xfe.0xa9.0xfe",
            "0251.0376.0251.0376",
            "10.1")) {
      assertThat(OutboundPolicy.DEFAULT.literalRefusal(host)).as(host).isPresent();
    }
  }

  @Test
  void namesAndNonAddressesAreNotLiteralRefusals() {
    for (String host :
        List.of(
            "localhost",
            "hooks.example",
            "127.0.0.1.nip.io",
            "0x7g000001",
            "4294967296",
            "256.0.0.1",
            "1.2.3.4.5",
            "08.0.0.1",
            "[not::an::ip]")) {
      assertThat(OutboundPolicy.DEFAULT.literalRefusal(host)).as(host).isEmpty();
    }
  }

  @Test
  void theAllowlistOpensBlocksAndAddressesAndTheirIpv6Forms() {
    OutboundPolicy policy = OutboundPolicy.of("127.0.0.1/32", "10.1.0.0/16", "fd00::/8, ::1");

    assertThat(policy.refusal(null, ip("127.0.0.1"))).isEmpty();
    assertThat(policy.refusal(null, ip("::ffff:127.0.0.1"))).isEmpty();
    assertThat(policy.refusal(null, ip("::127.0.0.1"))).isEmpty();
    assertThat(policy.refusal(null, ip("10.1.255.255"))).isEmpty();
    assertThat(policy.refusal(null, ip("fd12::1"))).isEmpty();
    assertThat(policy.refusal(null, ip("::1"))).isEmpty();
    assertThat(policy.literalRefusal("2130706433")).isEmpty();

    assertThat(policy.refusal(null, ip("127.0.0.2"))).isPresent();
    assertThat(policy.refusal(null, ip("10.2.0.1"))).isPresent();
    assertThat(policy.refusal(null, ip("169.254.169.254"))).isPresent();
    assertThat(policy.refusal(null, ip("fc00::1"))).isPresent();
  }

  @Test
  void anAllowedHostNameOpensWhateverItResolvesTo() {
    OutboundPolicy policy = OutboundPolicy.of("Hooks.Internal.");

    assertThat(policy.refusal("hooks.internal", ip("10.9.8.7"))).isEmpty();
    assertThat(policy.refusal("HOOKS.internal", ip("127.0.0.1"))).isEmpty();
    assertThat(policy.refusal("other.internal", ip("10.9.8.7"))).isPresent();
    assertThat(policy.refusal(null, ip("10.9.8.7"))).isPresent();
  }

  @Test
  void badEntriesAreNamedSettingsErrors() {
    SettingsErrors errors = new SettingsErrors();
    OutboundPolicy policy =
        OutboundPolicy.parse(
            List.of(
                "10.0.0.0/33", "10.0.0.1/8", "1.2.3/24", "fd00::/129", "not a host", "ok.example"),
            "worker.http.allow",
            errors);

    assertThat(errors.messages())
        .containsExactly(
            "worker.http.allow: \"10.0.0.0/33\" has a prefix length that is not a number from 0 to 32",
            "worker.http.allow: \"10.0.0.1/8\" has bits set past its prefix (did you mean 10.0.0.0/8?)",
            "worker.http.allow: \"1.2.3/24\" is not an IP address or a CIDR block",
            "worker.http.allow: \"fd00::/129\" has a prefix length that is not a number from 0 to 128",
            "worker.http.allow: \"not a host\" is not a CIDR block (10.1.0.0/16, fd00::/8), an IP"
                + " address or a host name");
    assertThat(policy.describe()).isEqualTo("ok.example");
    assertThatThrownBy(() -> OutboundPolicy.of("300.1.1.1"))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("300.1.1.1");
  }

  @Test
  void commaSeparatedEntriesAreSplitAndBlanksIgnored() {
    assertThat(OutboundPolicy.split(List.of(" 127.0.0.1/32 ,, hooks.internal ", "")))
        .containsExactly("127.0.0.1/32", "hooks.internal");
    assertThat(OutboundPolicy.of("").opensAnything()).isFalse();
  }
}
