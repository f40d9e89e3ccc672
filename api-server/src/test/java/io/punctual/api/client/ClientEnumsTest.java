package io.punctual.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.api.auth.Role;
import io.punctual.client.DstPolicy;
import io.punctual.client.JobPriority;
import io.punctual.client.JobStatus;
import io.punctual.client.KeyRole;
import io.punctual.client.MisfirePolicy;
import io.punctual.client.OverlapPolicy;
import io.punctual.client.RunCondition;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.schedule.expression.WireNames;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The Java client (Java 17, Jackson only) keeps its own copies of the server's enums; each copy
 * must name on the wire exactly what the server's does, in the same order, so a new state, role or
 * policy on the server fails here until the client knows it.
 */
class ClientEnumsTest {
  private static final ObjectMapper CLIENT_JSON = new ObjectMapper();

  private static String clientWire(Enum<?> value) {
    try {
      return CLIENT_JSON.readValue(CLIENT_JSON.writeValueAsString(value), String.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static <S extends Enum<S>> void sameOnTheWire(
      Enum<?>[] client, S[] server, Function<S, String> serverWire) {
    List<String> clientNames = Arrays.stream(client).map(ClientEnumsTest::clientWire).toList();
    List<String> serverNames = Arrays.stream(server).map(serverWire).toList();
    assertThat(clientNames)
        .as("%s against the server's %s", client.getClass(), server.getClass())
        .containsExactlyElementsOf(serverNames);
  }

  @Test
  void jobStatusIsJobStateAndAgreesOnWhatIsFinal() {
    sameOnTheWire(JobStatus.values(), JobState.values(), Enum::name);
    for (JobState state : JobState.values()) {
      assertThat(JobStatus.valueOf(state.name()).isFinal())
          .as(state.name())
          .isEqualTo(state.isTerminal());
    }
  }

  @Test
  void prioritiesRunConditionsAndRolesMatch() {
    sameOnTheWire(JobPriority.values(), Priority.values(), Priority::wireName);
    sameOnTheWire(
        RunCondition.values(), io.punctual.model.RunCondition.values(), c -> c.wireName());
    sameOnTheWire(KeyRole.values(), Role.values(), Role::wireName);
  }

  @Test
  void schedulePoliciesMatch() {
    sameOnTheWire(
        MisfirePolicy.values(), io.punctual.schedule.MisfirePolicy.values(), WireNames::of);
    sameOnTheWire(
        OverlapPolicy.values(), io.punctual.schedule.OverlapPolicy.values(), WireNames::of);
    sameOnTheWire(
        DstPolicy.Gap.values(),
        io.punctual.schedule.expression.DstPolicy.Gap.values(),
        WireNames::of);
    sameOnTheWire(
        DstPolicy.Overlap.values(),
        io.punctual.schedule.expression.DstPolicy.Overlap.values(),
        WireNames::of);
    assertThat(clientWire(DstPolicy.DEFAULT.gap()))
        .isEqualTo(WireNames.of(io.punctual.schedule.expression.DstPolicy.DEFAULT.gap()));
    assertThat(clientWire(DstPolicy.DEFAULT.overlap()))
        .isEqualTo(WireNames.of(io.punctual.schedule.expression.DstPolicy.DEFAULT.overlap()));
  }
}
