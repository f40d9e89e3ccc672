package io.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServerStatisticsTest {
  @Test
  void commandStatisticsAreReadFromRedisInfoLines() {
    String info =
        "# Commandstats\r\n"
            + "cmdstat_evalsha:calls=100,usec=52000,usec_per_call=520.00,rejected_calls=0,"
            + "failed_calls=0\r\n"
            + "cmdstat_set:calls=51200,usec=40960,usec_per_call=0.80,rejected_calls=0,"
            + "failed_calls=0\r\n"
            + "cmdstat_client|setname:calls=2,usec=3,usec_per_call=1.50\r\n"
            + "\r\n";

    assertThat(ServerStatistics.parse(info))
        .containsExactly(
            new ServerStatistics.Command("evalsha", 100, 52_000),
            new ServerStatistics.Command("set", 51_200, 40_960),
            new ServerStatistics.Command("client|setname", 2, 3));
    assertThat(ServerStatistics.parse("# Commandstats\r\n")).isEmpty();
  }
}
