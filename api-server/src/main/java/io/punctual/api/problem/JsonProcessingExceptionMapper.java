package io.punctual.api.problem;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * A request body that is not valid JSON: 400 with the JSON pointer of the error when known. Takes
 * precedence over Dropwizard's own mapper of the same exception.
 */
public final class JsonProcessingExceptionMapper
    implements ExceptionMapper<JsonProcessingException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(JsonProcessingException exception) {
    String detail = exception.getOriginalMessage();
    if (exception.getLocation() != null) {
      detail +=
          " (line "
              + exception.getLocation().getLineNr()
              + ", column "
              + exception.getLocation().getColumnNr()
              + ")";
    }
    return ProblemResponses.of(Problems.invalidJson(detail, pointer(exception)), uriInfo);
  }

  static String pointer(JsonProcessingException exception) {
    String pointer = null;
    if (exception instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      pointer = mapping.getPathReference();
    } else if (exception.getProcessor() instanceof JsonParser parser) {
      JsonStreamContext context = parser.getParsingContext();
      pointer = context == null ? null : context.pathAsPointer().toString();
    }
    return pointer == null || pointer.isEmpty() ? null : pointer;
  }
}
