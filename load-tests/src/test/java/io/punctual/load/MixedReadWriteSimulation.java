package io.punctual.load;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import java.time.Duration;

/**
 * What a service does with Punctual: submit a job (a short {@code sleep}), poll its status until it
 * has run, read its executions, and now and then list recent jobs by tag and by status.
 */
public class MixedReadWriteSimulation extends Simulation {
  private final ScenarioBuilder client =
      scenario("submit, poll, list")
          .exec(
              http("POST /jobs")
                  .post("/api/v1/jobs")
                  .body(
                      StringBody(
                          "{\"type\":\"sleep\",\"payload\":{\"ms\":20},\"tags\":[\"mixed\"]}"))
                  .check(status().is(201), jsonPath("$.id").saveAs("id")))
          .asLongAs(session -> !"SUCCEEDED".equals(session.getString("status")))
          .on(
              pause(Duration.ofMillis(50))
                  .exec(
                      http("GET /jobs/{id}")
                          .get("/api/v1/jobs/#{id}")
                          .check(status().is(200), jsonPath("$.status").saveAs("status"))))
          .exec(
              http("GET /jobs/{id}/executions")
                  .get("/api/v1/jobs/#{id}/executions")
                  .check(status().is(200)))
          .randomSwitch()
          .on(
              percent(20.0)
                  .then(
                      exec(
                          http("GET /jobs?tag=mixed")
                              .get("/api/v1/jobs?tag=mixed&limit=20")
                              .check(status().is(200)))),
              percent(10.0)
                  .then(
                      exec(
                          http("GET /jobs?status=SUCCEEDED")
                              .get("/api/v1/jobs?status=SUCCEEDED&limit=20")
                              .check(status().is(200)))));

  {
    int rate = Target.rate(100);
    setUp(
            client.injectOpen(
                rampUsersPerSec(1).to(rate).during(Target.ramp()),
                constantUsersPerSec(rate).during(Target.hold(30))))
        .protocols(Target.protocol())
        .assertions(global().failedRequests().count().is(0L));
  }
}
