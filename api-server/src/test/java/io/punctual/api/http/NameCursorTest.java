package io.punctual.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.api.problem.ProblemException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class NameCursorTest {
  @Test
  void aNameComesBackFromItsCursor() {
    for (String name :
        new String[] {"a", "nightly report", "\uD83D\uDE00 émoji", "x".repeat(200)}) {
      assertThat(NameCursor.decode(NameCursor.encode(name), 200)).isEqualTo(name);
    }
    assertThat(NameCursor.decode(" " + NameCursor.encode("padded") + " ", 200)).isEqualTo("padded");
  }

  @Test
  void noCursorIsTheFirstPageAndNoNameIsTheLastPage() {
    assertThat(NameCursor.decode(null, 200)).isNull();
    assertThat(NameCursor.decode("  ", 200)).isNull();
    assertThat(NameCursor.encode(null)).isNull();
  }

  @Test
  void aCursorOfNoNameThisListMayHoldIsA400NamingTheCursor() {
    assertRefused("!!!"); // not base64url
    assertRefused("_w"); // the byte FF: not UTF-8
    assertRefused("7aCA"); // ED A0 80: a lone surrogate, which UTF-8 cannot hold
    assertRefused(cursorOf("a\u0000")); // a NUL: no name holds one
    assertRefused(cursorOf("x".repeat(201))); // longer than any name
  }

  private static void assertRefused(String cursor) {
    assertThatThrownBy(() -> NameCursor.decode(cursor, 200))
        .as(cursor)
        .isInstanceOfSatisfying(
            ProblemException.class,
            refused -> {
              assertThat(refused.problem().status()).isEqualTo(400);
              assertThat(refused.problem().type()).endsWith("/invalid-parameter");
              assertThat(refused.problem().field()).isEqualTo("cursor");
            });
  }

  private static String cursorOf(String text) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
