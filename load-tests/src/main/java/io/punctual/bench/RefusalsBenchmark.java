package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;

/**
 * What refused requests cost the API (issue 32, "Security II"), against a {@code punctual api}
 * process with its bundled settings on the embedded PostgreSQL and Redis, as {@code bench submit}
 * runs it. Four parts, each printed with the target:
 *
 * <ol>
 *   <li><b>Gzip bombs without a key</b>: {@code --bombs} (40) requests at once, each a 15.5 KB gzip
 *       body that inflates to 16 MB of white space, to {@code POST /api/v1/jobs} without a key,
 *       {@code --bomb-rounds} (5) times; the API's RSS (VmRSS) before, at its highest (sampled
 *       every 20 ms) and after. Target: growth under 50 MB. Every answer must be a 401 (-1 counts a
 *       request that got no answer).
 *   <li><b>Audit rows of refused keys</b>: {@code --keys} (2,000) requests with a random key each
 *       ({@code POST /api/v1/jobs/batch}, 8 connections), their time, then (once the minute they
 *       fell in is over and the API has stored its summaries) the rows {@code audit_log} gained for
 *       that route. Target: under 20 rows.
 *   <li><b>Keyed submits alone</b>: single submits with the bootstrap key at {@code --rate} (500/s)
 *       for {@code --seconds} (20), open loop, after a warm-up ({@link SubmitBenchmark#fixedRate}):
 *       p50, p99.
 *   <li><b>The same beside a flood of bad keys</b>: {@code --flood} (64) connections sending {@code
 *       --flood-method} ({@code GET /api/v1/jobs}, kept alive; {@code POST}: {@code POST
 *       /api/v1/jobs} with a small body, whose 401 closes the connection) with a new random key
 *       each, as fast as answered, while the same keyed stream runs: its p99 against part 3's, the
 *       flood's refusals a second, and the API's meters {@code punctual.auth.keyReads}, {@code
 *       prefixReads} and {@code refusedUnread}. Target: keyed p99 within 1.5 times the alone one.
 * </ol>
 *
 * <p>Usage: {@code RefusalsBenchmark [--seconds S] [--rate R] [--flood N] [--flood-method GET|POST]
 * [--bombs B] [--bomb-rounds K] [--keys K] [--skip-audit] [--json FILE]}. {@code --skip-audit}
 * leaves out part 2, which waits up to a minute for the summaries. Keyed single submits before and
 * after the change are {@code bench submit}'s (see docs/performance.md).
 */
public final class RefusalsBenchmark {
  private RefusalsBenchmark() {}

  private static final SecureRandom RANDOM = new SecureRandom();

  public static void main(String[] args) throws Exception {
    int seconds = 20;
    int rate = 500;
    int flood = 64;
    String floodMethod = "GET";
    int bombs = 40;
    int bombRounds = 5;
    int keys = 2_000;
    boolean audit = true;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--flood" -> flood = Integer.parseInt(args[++i]);
        case "--flood-method" -> floodMethod = args[++i].toUpperCase(Locale.ROOT);
        case "--bombs" -> bombs = Integer.parseInt(args[++i]);
        case "--bomb-rounds" -> bombRounds = Integer.parseInt(args[++i]);
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--skip-audit" -> audit = false;
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (!floodMethod.equals("GET") && !floodMethod.equals("POST")) {
      throw new IllegalArgumentException("--flood-method is GET or POST");
    }
    ObjectNode out = BenchSupport.header("refusals");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String jdbcUrl = pg.jdbcUrl("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(jdbcUrl);
      try (PunctualProcesses processes = new PunctualProcesses(jdbcUrl, redis.url(), true);
          HikariDataSource db = BenchSupport.dataSource(jdbcUrl, 2)) {
        SubmitBenchmark.apiKey = BenchSupport.API_KEY;
        processes.migrate();
        PunctualProcesses.Role api = processes.startApi();
        Target target = new Target("127.0.0.1", api.httpPort());
        String base = "http://127.0.0.1:" + api.httpPort() + "/api/v1/jobs";
        BenchSupport.waitFor(target::answers, Duration.ofMinutes(2));
        System.out.printf(
            Locale.ROOT,
            "%s, %d cores, JDK %s, load average %s, API in its own process%n",
            BenchSupport.describe(postgres),
            Runtime.getRuntime().availableProcessors(),
            Runtime.version(),
            BenchSupport.loadAverage());
        SubmitBenchmark.Cpu cpu = new SubmitBenchmark.Cpu(api.pid(), pg.port());
        String job = "{\"type\":\"noop\",\"payload\":" + BenchSupport.PAYLOAD + "}";

        out.set("gzipBombs", bombs(target, api, bombs, bombRounds));
        if (audit) {
          out.set("auditRows", auditRows(target, db, keys));
        }
        // warm-up of the submit path, not counted (as bench submit's)
        SubmitBenchmark.phase(base, job, 32, -60_000, 1, cpu);
        SubmitBenchmark.Result alone = SubmitBenchmark.fixedRate(base, job, rate, seconds, cpu);
        SubmitBenchmark.print("keyed: " + rate + "/s alone", alone);
        ObjectNode flooded =
            besideFlood(target, api, base, job, rate, seconds, flood, floodMethod, cpu, alone);
        out.set("keyedAlone", alone.toJson());
        out.set("keyedBesideFlood", flooded);
        out.put("rate", rate);
        out.put("seconds", seconds);
        processes.sampleRss();
        System.out.println("  " + processes.rssLine());
        out.set("rssMb", processes.rssJson());
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /** Part 1: the API's RSS around rounds of gzip bombs sent at once without a key. */
  private static ObjectNode bombs(Target target, PunctualProcesses.Role api, int count, int rounds)
      throws Exception {
    byte[] bomb = gzipOfSpaces(16 * 1024 * 1024);
    System.out.printf(
        Locale.ROOT,
        "%ngzip bombs: %d at once without a key, %d rounds, each %.1f KB inflating to 16 MB%n",
        count,
        rounds,
        bomb.length / 1024.0);
    // settle: let the JIT and the GC of the start be done with
    Thread.sleep(3_000);
    System.gc();
    double before = BenchSupport.rssMb(api.pid())[0];
    AtomicBoolean sampling = new AtomicBoolean(true);
    double[] highest = {before};
    Thread sampler =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (sampling.get()) {
                    highest[0] = Math.max(highest[0], BenchSupport.rssMb(api.pid())[0]);
                    sleep(20);
                  }
                });
    Map<Integer, Long> statuses = new ConcurrentHashMap<>();
    long started = System.nanoTime();
    for (int round = 0; round < rounds; round++) {
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int i = 0; i < count; i++) {
          Future<?> unused =
              pool.submit(
                  () -> {
                    int status;
                    try {
                      status = target.gzipPost("/api/v1/jobs", bomb);
                    } catch (IOException e) {
                      status = -1; // no answer (reset): counted, it fails the target
                    }
                    statuses.merge(status, 1L, Long::sum);
                    return null;
                  });
        }
      }
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    Thread.sleep(1_000);
    sampling.set(false);
    sampler.join();
    double after = BenchSupport.rssMb(api.pid())[0];
    double growth = highest[0] - before;
    System.out.printf(
        Locale.ROOT,
        "  answers %s in %.2f s; API RSS before %.0f MB, highest %.0f MB, after %.0f MB:"
            + " growth %.0f MB (target < 50 MB: %s)%n",
        statuses,
        elapsed,
        before,
        highest[0],
        after,
        growth,
        growth < 50 ? "met" : "NOT MET");
    ObjectNode n = Json.mapper().createObjectNode();
    n.put("requests", (long) count * rounds);
    n.put("bodyBytes", bomb.length);
    n.put("seconds", elapsed);
    ObjectNode s = n.putObject("statuses");
    statuses.forEach((status, times) -> s.put(Integer.toString(status), times));
    n.put("rssBeforeMb", Math.round(before));
    n.put("rssHighestMb", Math.round(highest[0]));
    n.put("rssAfterMb", Math.round(after));
    n.put("rssGrowthMb", Math.round(growth));
    n.put("targetMet", growth < 50 && statuses.keySet().equals(java.util.Set.of(401)));
    return n;
  }

  /** Part 2: what {@code keys} refused keys add to the audit log. */
  private static ObjectNode auditRows(Target target, HikariDataSource db, int keys)
      throws Exception {
    String route = "/api/v1/jobs/batch";
    String action = "POST " + route;
    System.out.printf(
        Locale.ROOT, "%naudit: %d requests with a random key each to %s%n", keys, route);
    long rowsBefore = rows(db, action);
    Map<Integer, Long> statuses = new ConcurrentHashMap<>();
    AtomicLong next = new AtomicLong();
    long started = System.nanoTime();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < 8; c++) {
        Future<?> unused =
            pool.submit(
                () -> {
                  while (next.getAndIncrement() < keys) {
                    int status = target.status("POST", route, "{\"jobs\":[{\"type\":\"noop\"}]}");
                    statuses.merge(status, 1L, Long::sum);
                  }
                  return null;
                });
      }
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    // the summaries of a minute are stored once it is over (and the writer's next flush)
    Instant stored = Instant.now().truncatedTo(ChronoUnit.MINUTES).plusSeconds(62);
    long wait = Duration.between(Instant.now(), stored).toMillis();
    System.out.printf(
        Locale.ROOT,
        "  answers %s in %.2f s; waiting %.0f s for the minute's summaries%n",
        statuses,
        elapsed,
        wait / 1e3);
    Thread.sleep(Math.max(0, wait));
    long added = rows(db, action) - rowsBefore;
    System.out.printf(
        Locale.ROOT,
        "  audit_log rows added for %s: %d (target < 20: %s)%n",
        action,
        added,
        added < 20 ? "met" : "NOT MET");
    ObjectNode n = Json.mapper().createObjectNode();
    n.put("requests", keys);
    n.put("seconds", elapsed);
    ObjectNode s = n.putObject("statuses");
    statuses.forEach((status, times) -> s.put(Integer.toString(status), times));
    n.put("rowsAdded", added);
    n.put("targetMet", added < 20);
    return n;
  }

  private static long rows(HikariDataSource db, String action) throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT count(*) FROM audit_log WHERE action = ?")) {
      s.setString(1, action);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Part 4: the keyed stream again, beside a flood of requests with random keys. */
  private static ObjectNode besideFlood(
      Target target,
      PunctualProcesses.Role api,
      String base,
      String job,
      int rate,
      int seconds,
      int connections,
      String method,
      SubmitBenchmark.Cpu cpu,
      SubmitBenchmark.Result alone)
      throws Exception {
    System.out.printf(
        Locale.ROOT,
        "%nflood: %d connections of %s /api/v1/jobs with a new random key each%n",
        connections,
        method);
    List<PunctualProcesses.Role> apis = List.of(api);
    long[] metersBefore = authMeters(apis);
    AtomicBoolean flooding = new AtomicBoolean(true);
    AtomicLong refused = new AtomicLong();
    Map<Integer, Long> statuses = new ConcurrentHashMap<>();
    SubmitBenchmark.Result beside;
    long started;
    long ended;
    long duringKeyed;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < connections; c++) {
        Future<?> unused =
            pool.submit(
                () -> {
                  try (Target.Link connection = target.connection()) {
                    while (flooding.get()) {
                      int status = connection.refused(method);
                      statuses.merge(status, 1L, Long::sum);
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                });
      }
      Thread.sleep(2_000); // the flood at full speed first
      started = System.nanoTime();
      long refusedBefore = refused.get();
      beside = SubmitBenchmark.fixedRate(base, job, rate, seconds, cpu);
      ended = System.nanoTime();
      duringKeyed = refused.get() - refusedBefore;
      flooding.set(false);
    }
    double floodSeconds = (ended - started) / 1e9;
    long[] metersAfter = authMeters(apis);
    SubmitBenchmark.print("keyed: " + rate + "/s beside the flood", beside);
    double ratio = beside.at(0.99) / alone.at(0.99);
    System.out.printf(
        Locale.ROOT,
        "  flood: %.0f refusals/s (answers %s); keyed p99 %.1f ms beside it, %.1f ms alone:"
            + " %.2f times (target <= 1.5: %s)%n",
        duringKeyed / floodSeconds,
        statuses,
        beside.at(0.99),
        alone.at(0.99),
        ratio,
        ratio <= 1.5 ? "met" : "NOT MET");
    System.out.printf(
        Locale.ROOT,
        "  API meters over the run: punctual.auth.keyReads +%d, prefixReads +%d,"
            + " refusedUnread +%d%n",
        metersAfter[0] - metersBefore[0],
        metersAfter[1] - metersBefore[1],
        metersAfter[2] - metersBefore[2]);
    ObjectNode n = beside.toJson();
    n.put("floodConnections", connections);
    n.put("floodMethod", method);
    n.put("floodRefusalsPerSecond", Math.round(duringKeyed / floodSeconds));
    ObjectNode s = n.putObject("floodStatuses");
    statuses.forEach((status, times) -> s.put(Integer.toString(status), times));
    n.put("keyReads", metersAfter[0] - metersBefore[0]);
    n.put("prefixReads", metersAfter[1] - metersBefore[1]);
    n.put("refusedUnread", metersAfter[2] - metersBefore[2]);
    n.put("p99Ratio", ratio);
    n.put("targetMet", ratio <= 1.5);
    return n;
  }

  private static long[] authMeters(List<PunctualProcesses.Role> apis) {
    return new long[] {
      PunctualProcesses.meterCount(apis, "punctual.auth.keyReads"),
      PunctualProcesses.meterCount(apis, "punctual.auth.prefixReads"),
      PunctualProcesses.meterCount(apis, "punctual.auth.refusedUnread")
    };
  }

  /** A key of the generated form ({@code pct_} and 32 random bytes) that no key has. */
  static String randomKey() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return "pct_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] gzipOfSpaces(int size) throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      byte[] block = new byte[1 << 20];
      Arrays.fill(block, (byte) ' ');
      for (int written = 0; written < size; written += block.length) {
        out.write(block);
      }
    }
    return gz.toByteArray();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The API's application port, spoken to over plain sockets (no client library's costs). */
  record Target(String host, int port) {
    /** Whether the API answers (a 401 to a read with a random key). */
    boolean answers() {
      try {
        return status("GET", "/api/v1/me", null) == 401;
      } catch (IOException notYet) {
        return false;
      }
    }

    /** The status of one request on a connection of its own, with a random key. */
    int status(String method, String path, String body) throws IOException {
      try (Link c = connection()) {
        return c.send(method, path, randomKey(), body);
      }
    }

    /** Posts {@code gzip} as a gzip body without a key; the status answered. */
    int gzipPost(String path, byte[] gzip) throws IOException {
      try (Socket socket = new Socket(host, port)) {
        socket.setSoTimeout(60_000);
        String head =
            "POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + "\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                + "Connection: close\r\nContent-Length: "
                + gzip.length
                + "\r\n\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        try {
          out.write(gzip);
          out.flush();
        } catch (IOException closedEarly) {
          // the server answered and closed before it had all the body: read its answer
        }
        return Link.statusOf(socket.getInputStream());
      }
    }

    Link connection() {
      return new Link(this);
    }

    /** One kept-alive connection, opened again whenever the server closed it. */
    static final class Link implements AutoCloseable {
      private final Target target;
      private Socket socket;
      private InputStream in;
      private OutputStream out;

      Link(Target target) {
        this.target = target;
      }

      /** A refused request of {@code method} to {@code /api/v1/jobs} with a new random key. */
      int refused(String method) throws IOException {
        return send(
            method,
            "/api/v1/jobs",
            randomKey(),
            method.equals("POST") ? "{\"type\":\"noop\"}" : null);
      }

      int send(String method, String path, String key, String body) throws IOException {
        if (socket == null) {
          socket = new Socket(target.host(), target.port());
          socket.setTcpNoDelay(true);
          socket.setSoTimeout(30_000);
          in = new java.io.BufferedInputStream(socket.getInputStream(), 8192);
          out = socket.getOutputStream();
        }
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head =
            method
                + " "
                + path
                + " HTTP/1.1\r\nHost: "
                + target.host()
                + "\r\nAuthorization: Bearer "
                + key
                + (body == null
                    ? ""
                    : "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length)
                + "\r\n\r\n";
        try {
          out.write(head.getBytes(StandardCharsets.US_ASCII));
          out.write(bytes);
          out.flush();
          Answer answer = read(in);
          if (answer.closes()) {
            close();
          }
          return answer.status();
        } catch (IOException | RuntimeException e) {
          close();
          throw e;
        }
      }

      record Answer(int status, boolean closes) {}

      static int statusOf(InputStream in) throws IOException {
        return read(new java.io.BufferedInputStream(in)).status();
      }

      /** Reads one answer with a Content-Length (every problem the API writes has one). */
      static Answer read(InputStream in) throws IOException {
        String status = line(in);
        if (!status.startsWith("HTTP/1.1 ")) {
          throw new IOException("not an HTTP/1.1 answer: " + status);
        }
        long length = 0;
        boolean closes = false;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
          String lower = header.toLowerCase(Locale.ROOT);
          if (lower.startsWith("content-length:")) {
            length = Long.parseLong(lower.substring(15).trim());
          } else if (lower.startsWith("connection:") && lower.contains("close")) {
            closes = true;
          }
        }
        for (long left = length; left > 0; ) {
          long skipped = in.skip(left);
          if (skipped <= 0) {
            if (in.read() < 0) {
              throw new IOException("closed in the middle of an answer");
            }
            skipped = 1;
          }
          left -= skipped;
        }
        return new Answer(Integer.parseInt(status.substring(9, 12)), closes);
      }

      private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
          if (c < 0) {
            throw new IOException("closed in the middle of an answer");
          }
          if (c != '\r') {
            b.append((char) c);
          }
        }
        return b.toString();
      }

      @Override
      public void close() {
        if (socket != null) {
          try {
            socket.close();
          } catch (IOException ignored) {
            // closing anyway
          }
          socket = null;
        }
      }
    }
  }
}
