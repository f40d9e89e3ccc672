package io.punctual.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.client.CreatedKey;
import io.punctual.client.JobRequest;
import io.punctual.client.KeyPage;
import io.punctual.client.KeyRequest;
import io.punctual.client.KeyRole;
import io.punctual.client.KeyView;
import io.punctual.client.NamespacePage;
import io.punctual.client.NamespaceQuota;
import io.punctual.client.NamespaceView;
import io.punctual.client.PunctualApiException;
import io.punctual.client.PunctualClient;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Java client's namespace and key calls against the real API. */
class AdminClientIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static PunctualClient admin() {
    return PunctualClient.create(FIXTURE.baseUri()).withApiKey(ApiFixture.ADMIN_KEY);
  }

  @Test
  void createsReadsListsRequotasDeactivatesAndReactivatesANamespace() {
    PunctualClient admin = admin();
    NamespaceView created =
        admin.createNamespace("client-billing", new NamespaceQuota(50, 200, 1000L, 4096));
    assertThat(created.name()).isEqualTo("client-billing");
    assertThat(created.active()).isTrue();
    assertThat(created.quota()).isEqualTo(new NamespaceQuota(50, 200, 1000L, 4096));
    assertThat(created.usage()).isNull();
    assertThat(created.weight()).isEqualTo(1);

    PunctualClient billing = admin.withNamespace("client-billing");
    billing.submit(JobRequest.builder("noop").delay(Duration.ofHours(1)).build());
    NamespaceView read = admin.getNamespace("client-billing");
    assertThat(read.usage()).isEqualTo(new NamespaceView.Usage(1, 100_000));

    NamespaceView requota =
        admin.setNamespaceQuota("client-billing", new NamespaceQuota(null, null, 5L, null));
    assertThat(requota.quota()).isEqualTo(new NamespaceQuota(null, null, 5L, null));
    assertThat(
            admin
                .setNamespaceQuota("client-billing", NamespaceQuota.UNLIMITED)
                .quota()
                .isUnlimited())
        .isTrue();

    NamespaceView off = admin.deactivateNamespace("client-billing");
    assertThat(off.active()).isFalse();
    assertThat(off.deactivatedAt()).isNotNull();
    assertThatThrownBy(() -> billing.submit(JobRequest.builder("noop").build()))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              assertThat(e.type()).endsWith("/namespace-inactive");
            });
    assertThat(admin.reactivateNamespace("client-billing").active()).isTrue();
    assertThat(billing.submit(JobRequest.builder("noop").build()).namespace())
        .isEqualTo("client-billing");
  }

  @Test
  void listsNamespacesPageByPageAndRefusesWhatTheAPIRefuses() {
    PunctualClient admin = admin();
    admin.createNamespace("client-page-a", null);
    admin.createNamespace("client-page-b", null);
    List<String> names = new ArrayList<>();
    NamespacePage page = admin.listNamespaces(1, null);
    while (true) {
      assertThat(page.items()).hasSizeLessThanOrEqualTo(1);
      page.items().forEach(ns -> names.add(ns.name()));
      if (!page.hasMore()) {
        break;
      }
      page = admin.listNamespaces(1, page.nextCursor());
    }
    assertThat(names).contains("client-page-a", "client-page-b").isSorted();

    assertThatThrownBy(() -> admin.createNamespace("client-page-a", null))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              assertThat(e.field()).isEqualTo("name");
            });
    assertThatThrownBy(() -> admin.getNamespace("client-no-such"))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
    assertThatThrownBy(
            () -> admin.setNamespaceQuota("client-page-a", new NamespaceQuota(null, 5, null, null)))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.field()).isEqualTo("burst");
            });
  }

  @Test
  void createsANamespaceWithAWeightAndSetsItAgainAsReadsShowIt() {
    PunctualClient admin = admin();
    NamespaceView created = admin.createNamespace("client-weighted", null, 3);
    assertThat(created.weight()).isEqualTo(3);
    assertThat(created.quota().isUnlimited()).isTrue();
    assertThat(admin.getNamespace("client-weighted").weight()).isEqualTo(3);

    NamespaceView set = admin.setNamespaceWeight("client-weighted", 1000);
    assertThat(set.name()).isEqualTo("client-weighted");
    assertThat(set.weight()).isEqualTo(1000);
    assertThat(set.usage()).isNull();
    assertThat(admin.getNamespace("client-weighted").weight()).isEqualTo(1000);
    List<NamespaceView> listed = new ArrayList<>();
    NamespacePage page = admin.listNamespaces(20, null);
    while (true) {
      listed.addAll(page.items());
      if (!page.hasMore()) {
        break;
      }
      page = admin.listNamespaces(20, page.nextCursor());
    }
    assertThat(listed)
        .filteredOn(ns -> ns.name().equals("client-weighted"))
        .singleElement()
        .extracting(NamespaceView::weight)
        .isEqualTo(1000);
    // Setting the weight leaves the quota and the switch as they were.
    admin.setNamespaceQuota("client-weighted", new NamespaceQuota(null, null, 7L, null));
    NamespaceView again = admin.setNamespaceWeight("client-weighted", 1);
    assertThat(again.weight()).isEqualTo(1);
    assertThat(again.quota()).isEqualTo(new NamespaceQuota(null, null, 7L, null));
    assertThat(again.active()).isTrue();
  }

  @Test
  void refusesAWeightOutOfRangeAnUnknownNamespaceAndAKeyThatIsNotAdmin() {
    PunctualClient admin = admin();
    admin.createNamespace("client-weight-refusals", null);
    for (int weight : new int[] {0, 1001, -1}) {
      assertThatThrownBy(() -> admin.setNamespaceWeight("client-weight-refusals", weight))
          .isInstanceOfSatisfying(
              PunctualApiException.class,
              e -> {
                assertThat(e.status()).isEqualTo(422);
                assertThat(e.field()).isEqualTo("weight");
              });
    }
    assertThatThrownBy(() -> admin.createNamespace("client-weight-bad", null, 0))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.field()).isEqualTo("weight");
            });
    assertThatThrownBy(() -> admin.getNamespace("client-weight-bad"))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
    assertThatThrownBy(() -> admin.setNamespaceWeight("client-weight-no-such", 2))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));

    CreatedKey submitter =
        admin.createKey(
            KeyRequest.of("client-weight-submitter", KeyRole.SUBMITTER, "client-weight-refusals"));
    PunctualClient asSubmitter =
        PunctualClient.create(FIXTURE.baseUri()).withApiKey(submitter.secret());
    assertThatThrownBy(() -> asSubmitter.setNamespaceWeight("client-weight-refusals", 2))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(403));
    assertThat(admin.getNamespace("client-weight-refusals").weight()).isEqualTo(1);
  }

  @Test
  void aKeyCreatedThroughTheClientWorksUntilRevokedAndItsSecretIsShownOnce() {
    PunctualClient admin = admin();
    Instant expires =
        FIXTURE.clock.instant().plus(Duration.ofDays(30)).truncatedTo(ChronoUnit.SECONDS);
    CreatedKey created =
        admin.createKey(
            KeyRequest.of("client-submitter", KeyRole.SUBMITTER, "default").expiringAt(expires));
    KeyView key = created.key();
    assertThat(key.name()).isEqualTo("client-submitter");
    assertThat(key.role()).isEqualTo(KeyRole.SUBMITTER);
    assertThat(key.namespaces()).containsExactly("default");
    assertThat(key.expiresAt()).isEqualTo(expires);
    assertThat(created.secret()).startsWith(key.prefix());
    assertThat(created.toString()).doesNotContain(created.secret()).contains("<hidden>");

    PunctualClient asKey = PunctualClient.create(FIXTURE.baseUri()).withApiKey(created.secret());
    assertThat(asKey.submit(JobRequest.builder("noop").build()).namespace()).isEqualTo("default");
    // A submitter may not manage keys.
    assertThatThrownBy(() -> asKey.listKeys(10, null))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(403));

    KeyView read = admin.getKey(key.id());
    assertThat(read.id()).isEqualTo(key.id());
    assertThat(read.prefix()).isEqualTo(key.prefix());
    List<String> listed = new ArrayList<>();
    KeyPage page = admin.listKeys(1, null);
    while (true) {
      page.items().forEach(k -> listed.add(k.id()));
      if (!page.hasMore()) {
        break;
      }
      page = admin.listKeys(1, page.nextCursor());
    }
    assertThat(listed).contains(key.id());

    admin.revokeKey(key.id());
    assertThatThrownBy(() -> asKey.submit(JobRequest.builder("noop").build()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(401));
    assertThatThrownBy(() -> admin.getKey(key.id()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
    assertThatThrownBy(() -> admin.revokeKey(key.id()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
  }

  @Test
  void anAdminKeyActsInEveryNamespaceAndABadRequestNamesItsField() {
    PunctualClient admin = admin();
    CreatedKey second = admin.createKey(KeyRequest.admin("client-second-admin"));
    assertThat(second.key().namespaces()).containsExactly(KeyRequest.ALL_NAMESPACES);
    PunctualClient asSecond = PunctualClient.create(FIXTURE.baseUri()).withApiKey(second.secret());
    assertThat(asSecond.createNamespace("client-by-second-admin", null).active()).isTrue();

    assertThatThrownBy(
            () -> admin.createKey(KeyRequest.of("client-bad-admin", KeyRole.ADMIN, "default")))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.field()).isEqualTo("namespaces");
            });
  }
}
