package io.punctual.worker.handler.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

class ScrubbedExceptionTest {
  private static String printed(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Test
  void urlsLoseCredentialsQueryAndFragmentButKeepWhereTheyPoint() {
    assertThat(
            ScrubbedException.text(
                "Illegal character at index 9: https://user:pa%40ss@hooks.example.com:8443/a/b?token=x&y=z#f"
                    + " and http://h/p?q then HTTP://u:p@H"))
        .isEqualTo(
            "Illegal character at index 9: https://hooks.example.com:8443/a/b and http://h/p then"
                + " HTTP://H");
    assertThat(ScrubbedException.text("user:p@ss@host in https://a:b@c@d.example/x"))
        .isEqualTo("user:p@ss@host in https://d.example/x");
    assertThat(ScrubbedException.text("Connection refused")).isEqualTo("Connection refused");
    assertThat(ScrubbedException.text(null)).isNull();
  }

  @Test
  void anExceptionWithASecretAnywhereInItsChainIsCopiedScrubbedKeepingClassesAndStacks() {
    IOException cause = new IOException("GET https://alice:pw1@h.example/x?sig=abc failed");
    cause.addSuppressed(new IllegalStateException("also https://h.example/?api_key=k3y"));
    ConnectException original = new ConnectException("Connection refused");
    original.initCause(cause);

    IOException scrubbed = ScrubbedException.of(original);

    assertThat(scrubbed)
        .isNotSameAs(original)
        .hasToString("java.net.ConnectException: Connection refused");
    assertThat(scrubbed.getStackTrace()).isEqualTo(original.getStackTrace());
    String printed = printed(scrubbed);
    assertThat(printed)
        .contains("java.io.IOException: GET https://h.example/x failed")
        .contains("java.lang.IllegalStateException: also https://h.example/")
        .doesNotContain("pw1")
        .doesNotContain("sig=abc")
        .doesNotContain("k3y");
  }

  @Test
  void anExceptionWithNothingToScrubIsKeptAsItIs() {
    ConnectException clean = new ConnectException("Connect to http://127.0.0.1:9 failed");

    assertThat(ScrubbedException.of(clean)).isSameAs(clean);
  }

  @Test
  void aTimeoutStaysATimeout() {
    HttpTimeoutException timeout = new HttpTimeoutException("callback took longer than PT5S");
    timeout.initCause(new IOException("aborted https://h.example/hook?token=t"));

    IOException scrubbed = ScrubbedException.of(timeout);

    assertThat(scrubbed)
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessage("callback took longer than PT5S");
    assertThat(printed(scrubbed))
        .contains("aborted https://h.example/hook")
        .doesNotContain("token");
  }

  @Test
  void aRuntimeExceptionBecomesAnIoExceptionSayingWhatItWas() {
    IOException scrubbed =
        ScrubbedException.of(new IllegalArgumentException("bad URI http://u:p@h/?q=1"));

    assertThat(scrubbed).hasToString("java.lang.IllegalArgumentException: bad URI http://h/");
  }
}
