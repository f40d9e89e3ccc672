package io.punctual.api.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.api.problem.ProblemException;
import org.junit.jupiter.api.Test;

class AuthorizerTest {
  private final Authorizer authorizer =
      new Authorizer(
          "default",
          null,
          io.punctual.api.auth.RefusalPacing.none()); // authentication off: namespace rules only

  @Test
  void aNulInTheNamespaceHeaderIsA422NamingTheHeaderNotTrimmedAway() {
    for (String header : new String[] {"team-a\u0000", "\u0000team-a", "te\u0000am"}) {
      assertThatThrownBy(() -> authorizer.resolve(null, header))
          .isInstanceOfSatisfying(
              ProblemException.class,
              e -> {
                assertThat(e.problem().status()).isEqualTo(422);
                assertThat(e.problem().field()).isEqualTo(Authorizer.NAMESPACE_HEADER);
              });
    }
  }

  @Test
  void aLoneSurrogateInTheNamespaceHeaderIsA422() {
    assertThatThrownBy(() -> authorizer.resolve(null, "team\uD800"))
        .isInstanceOfSatisfying(
            ProblemException.class, e -> assertThat(e.problem().status()).isEqualTo(422));
  }

  @Test
  void otherInvalidNamespacesStay400AndValidOnesResolve() {
    assertThatThrownBy(() -> authorizer.resolve(null, "a b"))
        .isInstanceOfSatisfying(
            ProblemException.class, e -> assertThat(e.problem().status()).isEqualTo(400));
    assertThat(authorizer.resolve(null, " team-a ").namespace()).isEqualTo("team-a");
    assertThat(authorizer.resolve(null, null).namespace()).isEqualTo("default");
  }
}
