package io.punctual.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.AuditStore;
import io.punctual.store.AuditStore.Entry;
import io.punctual.store.AuditStore.Query;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The reaper keeps the audit log for audit.retention, dropping whole days past it. */
class AuditRetentionIT {
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
  private final ReaperFixture f = new ReaperFixture();
  private final AuditStore audit = new AuditStore(f.stores.database().jdbi());
  private final Instant now = f.clock.instant();

  @AfterEach
  void close() {
    f.close();
  }

  private void entryFrom(int daysAgo, String target) {
    Instant at = now.minus(Duration.ofDays(daysAgo));
    audit.insert(
        List.of(new Entry(at, null, null, "k", "default", "POST /api/v1/jobs", target, 201, null)));
  }

  private List<String> targets() {
    return audit.page(new Query(null, null, null, null, null, null, null, 100)).items().stream()
        .map(s -> s.entry().target())
        .toList();
  }

  @Test
  void daysPastRetentionAreDroppedAndTheRestKept() {
    f.settings.auditRetention = Duration.ofDays(30);
    entryFrom(40, "forty");
    entryFrom(31, "thirty-one");
    entryFrom(29, "twenty-nine");
    entryFrom(0, "today");

    PartitionJanitor.Upkeep upkeep = f.janitor().runOnce();

    assertThat(targets()).containsExactly("today", "twenty-nine");
    String fortyDaysAgo =
        LocalDate.ofInstant(now.minus(Duration.ofDays(40)), ZoneOffset.UTC).format(DAY);
    assertThat(upkeep.partitionsDropped()).contains("audit_log_p" + fortyDaysAgo);
    String inTwoDays = LocalDate.ofInstant(now, ZoneOffset.UTC).plusDays(2).format(DAY);
    boolean createdAhead =
        f.stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT to_regclass(:t) IS NOT NULL")
                        .bind("t", "audit_log_p" + inTwoDays)
                        .mapTo(Boolean.class)
                        .one());
    assertThat(createdAhead).as("days created ahead").isTrue();

    // Ten days on (the reaper's clock moves), the entry of 29 days ago is past retention too.
    f.clock.set(now.plus(Duration.ofDays(10)));
    f.janitor().runOnce();
    assertThat(targets()).containsExactly("today");
  }

  @Test
  void aDayDroppedMeanwhileIsCreatedAgainByTheNextWrite() {
    f.settings.auditRetention = Duration.ofDays(30);
    entryFrom(40, "before");
    f.janitor().runOnce();

    // This store still remembers the day as existing: the insert fails, the day comes back.
    entryFrom(40, "again");

    assertThat(targets()).containsExactly("again");
  }
}
