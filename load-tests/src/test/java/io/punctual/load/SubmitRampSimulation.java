package io.punctual.load;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;

/**
 * REST submission ramp: single submits ramp up to {@code rate} per second and hold, while batch
 * submits (100 jobs each) ramp to a tenth of that. Every answer must be 201 with the jobs.
 */
public class SubmitRampSimulation extends Simulation {
  private static final String BATCH;

  static {
    StringBuilder b = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < 100; i++) {
      b.append(i == 0 ? "" : ",").append("{\"type\":\"noop\",\"tags\":[\"gatling\"]}");
    }
    BATCH = b.append("]}").toString();
  }

  private final ScenarioBuilder single =
      scenario("single submit")
          .exec(
              http("POST /jobs")
                  .post("/api/v1/jobs")
                  .body(StringBody("{\"type\":\"noop\",\"tags\":[\"gatling\"]}"))
                  .check(status().is(201), jsonPath("$.id").exists()));

  private final ScenarioBuilder batch =
      scenario("batch submit")
          .exec(
              http("POST /jobs/batch (100)")
                  .post("/api/v1/jobs/batch")
                  .body(StringBody(BATCH))
                  .check(status().is(201), jsonPath("$.items[99].id").exists()));

  {
    int rate = Target.rate(500);
    setUp(
            single.injectOpen(
                rampUsersPerSec(1).to(rate).during(Target.ramp()),
                constantUsersPerSec(rate).during(Target.hold(30))),
            batch.injectOpen(
                rampUsersPerSec(1).to(Math.max(1, rate / 10)).during(Target.ramp()),
                constantUsersPerSec(Math.max(1, rate / 10)).during(Target.hold(30))))
        .protocols(Target.protocol())
        .assertions(global().failedRequests().count().is(0L));
  }
}
