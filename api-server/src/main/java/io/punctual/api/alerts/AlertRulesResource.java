package io.punctual.api.alerts;

import static io.punctual.api.problem.ResourceRefusals.conflictOn;
import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.NameCursor;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.store.alert.AlertDelivery;
import io.punctual.store.alert.AlertOutbox;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.alert.AlertRule.Draft;
import io.punctual.store.alert.AlertRules;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code /api/v1/alert-rules}: the alert rules of the request's namespace, and the notices each
 * sent ({@code /{id}/deliveries}). Reading takes a viewer key, writing an operator key; a rule of
 * another namespace is a 404. A change reaches this process's finish and rescue steps at once and
 * the other processes' within {@link AlertOutbox#REFRESH}.
 */
@Path("/api/v1/alert-rules")
@Produces(MediaType.APPLICATION_JSON)
public final class AlertRulesResource {
  private static final String RULE = "alert rule";

  private final AlertRules rules;
  private final AlertOutbox outbox;
  private final AlertRuleParser parser;
  private final ApiSettings settings;

  public AlertRulesResource(AlertRules rules, AlertOutbox outbox, ApiSettings settings) {
    this.rules = rules;
    this.outbox = outbox;
    this.parser = new AlertRuleParser(settings.callbackPolicy);
    this.settings = settings;
  }

  /** 201 with the new rule; 409 {@code alert-rule-exists} naming {@code name}. */
  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public Response create(@Context ContainerRequestContext request, JsonNode body) {
    String namespace = RequestContext.of(request).namespace();
    Draft draft = checked(namespace, parser.parse(body));
    AlertRule rule = nameTaken(draft, () -> rules.create(namespace, draft));
    outbox.refresh();
    return Response.created(URI.create("/api/v1/alert-rules/" + rule.id()))
        .entity(AlertRuleRepresentation.of(rule))
        .build();
  }

  /** The namespace's rules by name; {@code cursor} comes from the previous page. */
  @GET
  @Timed
  @Requires(Permission.READ)
  public AlertRulePage list(
      @Context ContainerRequestContext request,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    String namespace = RequestContext.of(request).namespace();
    int pageSize = QueryParams.limit(limit, settings);
    String after = NameCursor.decode(cursor, AlertRuleParser.MAX_NAME_LENGTH);
    List<AlertRule> page = rules.list(namespace, after, pageSize + 1);
    String next = null;
    if (page.size() > pageSize) {
      page = page.subList(0, pageSize);
      next = NameCursor.encode(page.get(pageSize - 1).name());
    }
    return new AlertRulePage(page.stream().map(AlertRuleRepresentation::of).toList(), next);
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.READ)
  public AlertRuleRepresentation get(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    return AlertRuleRepresentation.of(find(request, id));
  }

  /** Replaces the rule's definition as a whole (its open incidents stay). */
  @PUT
  @Path("{id}")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public AlertRuleRepresentation replace(
      @Context ContainerRequestContext request, @PathParam("id") String id, JsonNode body) {
    String namespace = RequestContext.of(request).namespace();
    UUID ruleId = pathId(RULE, id);
    if (rules.find(namespace, ruleId).isEmpty()) {
      throw notFound(RULE, id);
    }
    Draft draft = checked(namespace, parser.parse(body));
    AlertRule rule =
        nameTaken(
            draft,
            () -> rules.replace(namespace, ruleId, draft).orElseThrow(() -> notFound(RULE, id)));
    outbox.refresh();
    return AlertRuleRepresentation.of(rule);
  }

  /** Deletes the rule, its open incidents and its notices (pending ones are not sent). */
  @DELETE
  @Path("{id}")
  @Timed
  @Requires(Permission.OPERATE)
  public Response delete(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    if (!rules.delete(namespace, pathId(RULE, id))) {
      throw notFound(RULE, id);
    }
    outbox.refresh();
    return Response.noContent().build();
  }

  /** The rule's notices, newest first; {@code cursor} is the previous page's. */
  @GET
  @Path("{id}/deliveries")
  @Timed
  @Requires(Permission.READ)
  public DeliveryPage deliveries(
      @Context ContainerRequestContext request,
      @PathParam("id") String id,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    AlertRule rule = find(request, id);
    int pageSize = QueryParams.limit(limit, settings);
    Long before = null;
    if (cursor != null && !cursor.isBlank()) {
      try {
        before = Long.parseLong(cursor.trim());
      } catch (NumberFormatException e) {
        throw Problems.badParameter("cursor", "is not a cursor this API returned");
      }
      if (before < 1) {
        throw Problems.badParameter("cursor", "is not a cursor this API returned");
      }
    }
    List<AlertDelivery> page = rules.deliveries(rule.id(), before, pageSize + 1);
    String next = null;
    if (page.size() > pageSize) {
      page = page.subList(0, pageSize);
      next = Long.toString(page.get(pageSize - 1).id());
    }
    return new DeliveryPage(page.stream().map(DeliveryPage.Delivery::of).toList(), next);
  }

  private AlertRule find(ContainerRequestContext request, String id) {
    String namespace = RequestContext.of(request).namespace();
    return rules.find(namespace, pathId(RULE, id)).orElseThrow(() -> notFound(RULE, id));
  }

  /** The draft, once the schedule it narrows to (if any) is known in the namespace. */
  private Draft checked(String namespace, Draft draft) {
    if (draft.scheduleId() != null && !rules.scheduleExists(namespace, draft.scheduleId())) {
      throw Problems.invalid("when.scheduleId", "names no schedule of this namespace");
    }
    return draft;
  }

  private static AlertRule nameTaken(Draft draft, Supplier<AlertRule> write) {
    return conflictOn(
        AlertRules.NameTakenException.class,
        write,
        e ->
            Problems.conflict(
                "alert-rule-exists",
                "Alert rule exists",
                "This namespace already has an alert rule named " + draft.name() + ".",
                "name"));
  }
}
