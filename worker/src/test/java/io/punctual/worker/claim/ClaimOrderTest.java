package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.model.Priority;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.worker.run.TestJobs;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ClaimOrderTest {
  private static final List<Job> JOBS =
      IntStream.range(0, 6).mapToObj(i -> TestJobs.running("noop", "{}", 1, 3)).toList();

  private static Claimed claimed(Job job) {
    return new Claimed(job.id(), Priority.NORMAL);
  }

  @Test
  void confirmedJobsComeBackInTheClaimsOrderWhateverOrderTheyWereConfirmedIn() {
    ClaimOrder order = ClaimOrder.of(JOBS.stream().map(ClaimOrderTest::claimed).toList());

    assertThat(order.ids()).containsExactlyElementsOf(JOBS.stream().map(Job::id).toList());
    // Confirmed in another order, two of them not at all (refused, or leased elsewhere).
    List<Job> confirmed = List.of(JOBS.get(5), JOBS.get(0), JOBS.get(3), JOBS.get(1));
    assertThat(order.inOrder(confirmed))
        .containsExactly(JOBS.get(0), JOBS.get(1), JOBS.get(3), JOBS.get(5));
    assertThat(order.inOrder(List.of())).isEmpty();
  }

  @Test
  void anIdClaimedTwiceIsStartedOnceAtItsLastPlace() {
    Job twice = JOBS.get(0);
    ClaimOrder order =
        ClaimOrder.of(
            List.of(claimed(twice), claimed(JOBS.get(1)), claimed(twice), claimed(JOBS.get(2))));

    assertThat(order.ids()).hasSize(4);
    assertThat(order.inOrder(List.of(JOBS.get(2), twice, JOBS.get(1))))
        .containsExactly(JOBS.get(1), twice, JOBS.get(2));
  }

  @Test
  void idsOfAreTheJobsIds() {
    assertThat(ClaimOrder.idsOf(JOBS))
        .containsExactlyInAnyOrderElementsOf(JOBS.stream().map(Job::id).toList());
    assertThat(ClaimOrder.idsOf(List.of())).isEmpty();
  }
}
