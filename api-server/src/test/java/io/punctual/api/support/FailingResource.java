package io.punctual.api.support;

import io.dropwizard.jersey.validation.JerseyViolationException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;

/** Throws what Dropwizard's default mappers would otherwise answer, to prove ours win. */
@Path("/test/fail")
@Produces(MediaType.APPLICATION_JSON)
public class FailingResource {
  @GET
  @Path("illegal-state")
  public String illegalState() {
    throw new IllegalStateException("secret internals");
  }

  @GET
  @Path("runtime")
  public String runtime() {
    throw new RuntimeException("secret internals");
  }

  @GET
  @Path("pool-timeout")
  public String poolTimeout() {
    throw new RuntimeException(
        new SQLTransientConnectionException("test - Connection is not available"));
  }

  @GET
  @Path("empty-optional")
  public Optional<String> emptyOptional() {
    return Optional.empty();
  }

  @GET
  @Path("violation")
  public String violation() {
    throw new JerseyViolationException(Set.of(), null);
  }
}
