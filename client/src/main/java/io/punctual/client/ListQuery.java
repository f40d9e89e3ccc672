package io.punctual.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/** Filters and paging for {@link PunctualClient#list}; unset filters match everything. */
public final class ListQuery {
  private final Map<String, String> params = new LinkedHashMap<>();

  public static ListQuery all() {
    return new ListQuery();
  }

  public ListQuery status(JobStatus status) {
    return put("status", status == null ? null : status.name());
  }

  public ListQuery type(String type) {
    return put("type", type);
  }

  public ListQuery tag(String tag) {
    return put("tag", tag);
  }

  /** Jobs scheduled at or after this time. */
  public ListQuery from(Instant from) {
    return put("from", from == null ? null : from.toString());
  }

  /** Jobs scheduled before this time. */
  public ListQuery to(Instant to) {
    return put("to", to == null ? null : to.toString());
  }

  public ListQuery limit(int limit) {
    return put("limit", Integer.toString(limit));
  }

  /** The {@code nextCursor} of the previous page. */
  public ListQuery cursor(String cursor) {
    return put("cursor", cursor);
  }

  private ListQuery put(String name, String value) {
    if (value == null) {
      params.remove(name);
    } else {
      params.put(name, value);
    }
    return this;
  }

  /** The query string, without the leading {@code ?} (empty when nothing is set). */
  String toQueryString() {
    StringJoiner joiner = new StringJoiner("&");
    params.forEach((k, v) -> joiner.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return joiner.toString();
  }
}
