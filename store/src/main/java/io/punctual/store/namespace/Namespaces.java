package io.punctual.store.namespace;

import static io.punctual.store.sql.Columns.instant;

import io.punctual.store.sql.SqlFiles;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The {@code namespaces} table (V12, V17, V26, V27): which namespaces exist, whether each is
 * active, its quotas, its weight and its egress. The SQL is in {@code Namespaces/*.sql} beside this
 * class.
 */
public final class Namespaces {
  private static final SqlFiles SQL = new SqlFiles(Namespaces.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public Namespaces(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** Creates the namespace with weight 1; empty when one of that name exists already. */
  public Optional<Namespace> create(String name, Quota quota) {
    return create(name, quota, Namespace.DEFAULT_WEIGHT);
  }

  /** Creates the namespace; empty when one of that name exists already. */
  public Optional<Namespace> create(String name, Quota quota, int weight) {
    return jdbi.withHandle(
        h ->
            bindQuota(h.createQuery(sql("create")), quota)
                .bind("name", name)
                .bind("weight", weight)
                .bind("now", clock.instant())
                .map(Namespaces::map)
                .findOne());
  }

  /** The namespace, created active and unlimited first if it has no row yet. */
  public Namespace ensure(String name) {
    return jdbi.withHandle(
        h -> {
          h.createUpdate(sql("ensure")).bind("name", name).bind("now", clock.instant()).execute();
          return find(h, name).orElseThrow();
        });
  }

  public Optional<Namespace> find(String name) {
    return jdbi.withHandle(h -> find(h, name));
  }

  private static Optional<Namespace> find(Handle h, String name) {
    return h.createQuery(sql("find")).bind("name", name).map(Namespaces::map).findOne();
  }

  /**
   * Up to {@code limit} namespaces named after {@code afterName} (null: from the first), by name;
   * only those in {@code only} unless it is null.
   */
  public List<Namespace> list(String afterName, int limit, Collection<String> only) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("list"))
                .bind("after", afterName)
                .bind("all", only == null)
                .bind("names", only == null ? new String[0] : only.toArray(String[]::new))
                .bind("limit", limit)
                .map(Namespaces::map)
                .list());
  }

  /** Every namespace row (what the API's and the worker's caches hold). */
  public List<Namespace> all() {
    return jdbi.withHandle(h -> h.createQuery(sql("all")).map(Namespaces::map).list());
  }

  /** The names of the namespaces deactivated now. */
  public Set<String> inactive() {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("inactive"))
                .mapTo(String.class)
                .collect(Collectors.toCollection(TreeSet::new)));
  }

  /** Replaces the quota; empty when there is no such namespace. */
  public Optional<Namespace> setQuota(String name, Quota quota) {
    return jdbi.withHandle(
        h ->
            bindQuota(h.createQuery(sql("setQuota")), quota)
                .bind("name", name)
                .map(Namespaces::map)
                .findOne());
  }

  /**
   * Sets the weight (a share of the workers' free slots); empty when there is no such namespace.
   */
  public Optional<Namespace> setWeight(String name, int weight) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("setWeight"))
                .bind("name", name)
                .bind("weight", weight)
                .map(Namespaces::map)
                .findOne());
  }

  /**
   * What a worker needs of a namespace with a row: whether it is claimed from, its weight, and the
   * caps on its running attempts ({@code maxRunning} at once, {@code maxTimeout} each; null: none).
   */
  public record ClaimSetting(boolean active, int weight, Integer maxRunning, Duration maxTimeout) {}

  /** What a worker needs of every namespace with a row, by name. */
  public Map<String, ClaimSetting> claimSettings() {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("claimSettings"))
                .map(
                    (rs, ctx) ->
                        Map.entry(
                            rs.getString("name"),
                            new ClaimSetting(
                                rs.getBoolean("active"),
                                rs.getInt("weight"),
                                rs.getObject("max_running", Integer.class),
                                millis(rs, "max_timeout_ms"))))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
  }

  /**
   * How many more attempts of the namespace may start now under its running cap ({@code maxRunning}
   * less the attempts holding its slots; 0 or less when full); {@link Integer#MAX_VALUE} for a
   * namespace without a cap.
   */
  public int runningRoom(String name) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("runningRoom"))
                .bind("name", name)
                .mapTo(Integer.class)
                .findOne()
                .orElse(Integer.MAX_VALUE));
  }

  /**
   * Deactivates ({@code active} false) or reactivates the namespace; empty when there is no such
   * namespace. Deactivating one that is inactive already keeps its {@code deactivatedAt}.
   */
  public Optional<Namespace> setActive(String name, boolean active) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("setActive"))
                .bind("name", name)
                .bind("active", active)
                .bind("now", clock.instant())
                .map(Namespaces::map)
                .findOne());
  }

  /**
   * How many jobs of the namespace are PENDING, counted up to {@code cap}: the answer is {@code
   * cap} when there are that many or more, so the cost is bounded by the cap.
   */
  public long countPending(String name, long cap) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("countPending"))
                .bind("name", name)
                .bind("cap", cap)
                .mapTo(Long.class)
                .one());
  }

  /**
   * Replaces what the namespace's callbacks may reach and whether their answers are kept; empty
   * when there is no such namespace. (Checking {@code egress} against the deployment's ceiling is
   * the caller's.)
   */
  public Optional<Namespace> setEgress(String name, Egress egress) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("setEgress"))
                .bind("name", name)
                .bind("allow", egress.allow().toArray(String[]::new))
                .bind("keepResponse", egress.keepResponse())
                .map(Namespaces::map)
                .findOne());
  }

  /** The namespace's egress grant; {@link Egress#NONE} for a namespace without a row. */
  public Egress egressOf(String name) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("egress"))
                .bind("name", name)
                .map((rs, ctx) -> egress(rs))
                .findOne()
                .orElse(Egress.NONE));
  }

  private static Egress egress(ResultSet rs) throws SQLException {
    Array allow = rs.getArray("egress_allow");
    return new Egress(
        allow == null ? List.of() : List.of((String[]) allow.getArray()),
        rs.getBoolean("keep_callback_response"));
  }

  private static <S extends SqlStatement<S>> S bindQuota(S statement, Quota quota) {
    return statement
        .bindByType("submitsPerSecond", quota.submitsPerSecond(), Integer.class)
        .bindByType("burst", quota.burst(), Integer.class)
        .bindByType("maxPending", quota.maxPending(), Long.class)
        .bindByType("maxPayloadBytes", quota.maxPayloadBytes(), Integer.class)
        .bindByType("maxRunning", quota.maxRunning(), Integer.class)
        .bindByType(
            "maxTimeoutMs",
            quota.maxTimeout() == null ? null : quota.maxTimeout().toMillis(),
            Long.class);
  }

  private static Duration millis(ResultSet rs, String column) throws SQLException {
    Long ms = rs.getObject(column, Long.class);
    return ms == null ? null : Duration.ofMillis(ms);
  }

  private static Namespace map(ResultSet rs, StatementContext ctx) throws SQLException {
    return new Namespace(
        rs.getString("name"),
        rs.getBoolean("active"),
        instant(rs, "created_at"),
        instant(rs, "deactivated_at"),
        new Quota(
            rs.getObject("submits_per_second", Integer.class),
            rs.getObject("submit_burst", Integer.class),
            rs.getObject("max_pending", Long.class),
            rs.getObject("max_payload_bytes", Integer.class),
            rs.getObject("max_running", Integer.class),
            millis(rs, "max_timeout_ms")),
        rs.getLong("quota_version"),
        rs.getInt("weight"),
        egress(rs));
  }
}
