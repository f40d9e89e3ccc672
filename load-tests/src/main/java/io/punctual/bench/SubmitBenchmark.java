package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * REST submission: the API runs as its own process ({@code java -jar deploy/target/punctual.jar
 * api}, see {@link PunctualProcesses}) on the embedded PostgreSQL (fsync and synchronous_commit on)
 * and Redis this benchmark starts; clients on virtual threads in this process, each with its own
 * kept-alive connection ({@link KeepAliveSender}), post no-op jobs due now (each is committed, then
 * enqueued in Redis), first one job per request, then batches. Every answer must be 201.
 *
 * <p>Usage: {@code SubmitBenchmark [--seconds S] [--clients C] [--batch-size B] [--batch-clients K]
 * [--json FILE] [--no-auth]}; defaults 10 s, 32 clients, batches of 500 from 4 clients. Each phase
 * starts with a warm-up that is not counted: at least 5 s and 20,000 single requests (200 batches),
 * so that the measured part runs compiled code even on a busy machine. Besides rates and latencies
 * it reports the CPU one request costs the API process, PostgreSQL and the client, and the rate the
 * cores could serve if CPU were the only limit: a figure that holds up on a shared machine.
 */
public final class SubmitBenchmark {
  private SubmitBenchmark() {}

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .executor(Executors.newVirtualThreadPerTaskExecutor())
          .build();

  /** Requests of the fixed-rate phase in flight at most (each sender waits for its answer). */
  private static final int FIXED_RATE_SENDERS = 64;

  /** The key requests carry; null with {@code --no-auth} (set by the benchmark that runs). */
  static String apiKey;

  /** Seconds at the fixed rate before the measured ones (see {@link #fixedRate}). */
  private static final int FIXED_RATE_LEAD_IN_SECONDS = 5;

  public static void main(String[] args) throws Exception {
    int seconds = 10;
    int clients = 32;
    int batchSize = 500;
    int batchClients = 4;
    int rate = 3_000;
    Path json = null;
    boolean auth = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--batch-size" -> batchSize = Integer.parseInt(args[++i]);
        case "--batch-clients" -> batchClients = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        case "--no-auth" -> auth = false;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("submit");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(pg.jdbcUrl("punctual"));
      try (PunctualProcesses processes =
          new PunctualProcesses(pg.jdbcUrl("punctual"), redis.url(), auth)) {
        apiKey = auth ? BenchSupport.API_KEY : null;
        processes.migrate();
        BenchSupport.payloadIndexIfAsked(pg.jdbcUrl("punctual"));
        PunctualProcesses.Role api = processes.startApi();
        String base = "http://127.0.0.1:" + api.httpPort() + "/api/v1/jobs";
        BenchSupport.waitFor(() -> ping(base), Duration.ofMinutes(2));
        System.out.printf(
            Locale.ROOT,
            "%s, %d cores, JDK %s, load average %s, API in its own process%n",
            BenchSupport.describe(postgres),
            Runtime.getRuntime().availableProcessors(),
            Runtime.version(),
            BenchSupport.loadAverage());

        Cpu cpu = new Cpu(api.pid(), pg.port());
        String job = "{\"type\":\"noop\",\"payload\":" + BenchSupport.PAYLOAD + "}";
        String one = job;
        // Warm-up, not counted: until the JIT has compiled the request path (at least 15 s and
        // 60,000 requests, at most 2 minutes); shorter ones left C2 compiling through the
        // measured phase (a 10 s run after 20,000 requests gave two thirds of a 40 s run's rate).
        phase(base, one, clients, -60_000, 1, cpu);
        Result single = phase(base, one, clients, seconds, 1, cpu);
        print("single: " + clients + " clients, 1 job per request", single);
        Result fixed = null;
        if (rate > 0) {
          fixed = fixedRate(base, one, rate, seconds, cpu);
          print("single: " + rate + "/s offered (open loop)", fixed);
        }

        StringBuilder batch = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < batchSize; i++) {
          batch.append(i == 0 ? "" : ",").append(job);
        }
        String batchBody = batch.append("]}").toString();
        phase(base + "/batch", batchBody, batchClients, -200, batchSize, cpu); // warm-up
        Result batched = phase(base + "/batch", batchBody, batchClients, seconds, batchSize, cpu);
        print("batch: " + batchClients + " clients, " + batchSize + " jobs per request", batched);
        processes.sampleRss();
        System.out.println("  " + processes.rssLine());

        out.put("seconds", seconds);
        out.put("clients", clients);
        out.put("auth", auth);
        out.putNull("executionsPerSecond");
        out.putNull("lagMs");
        out.put("submitPerSecond", Math.round(single.jobsPerSecond()));
        out.set("latencyMs", single.toJson());
        if (fixed != null) {
          ObjectNode f = out.putObject("fixedRate");
          f.put("offeredPerSecond", rate);
          f.put("submitPerSecond", Math.round(fixed.jobsPerSecond()));
          f.set("latencyMs", fixed.toJson());
        }
        out.put("batchSize", batchSize);
        out.put("batchClients", batchClients);
        out.put("batchJobsPerSecond", Math.round(batched.jobsPerSecond()));
        out.set("batchLatencyMs", batched.toJson());
        out.set("rssMb", processes.rssJson());
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /** The CPU time the API process, PostgreSQL and this (client) process have used so far. */
  record Cpu(long apiPid, int postgresPort) {
    double[] now() {
      return new double[] {
        BenchSupport.cpuSeconds(apiPid, false),
        BenchSupport.postgresCpuSeconds(postgresPort),
        BenchSupport.cpuSeconds(ProcessHandle.current().pid(), false)
      };
    }
  }

  /**
   * Requests answered, jobs stored, elapsed time, latencies (ms) and CPU seconds used by the API,
   * PostgreSQL and the client during one phase.
   */
  @SuppressWarnings("ArrayRecordComponent") // figures to print, never compared or hashed
  record Result(long requests, long jobs, double seconds, double[] latencies, double[] cpuSeconds) {
    /** CPU microseconds per request: API, PostgreSQL, client. */
    double[] cpuMicrosPerRequest() {
      double[] out = new double[cpuSeconds.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = cpuSeconds[i] * 1e6 / requests;
      }
      return out;
    }

    /**
     * Requests per second the machine's cores could serve if CPU were the only limit and nothing
     * else ran: cores divided by the CPU one request costs (API + PostgreSQL + client).
     */
    double cpuCeiling() {
      double[] us = cpuMicrosPerRequest();
      return Runtime.getRuntime().availableProcessors() * 1e6 / (us[0] + us[1] + us[2]);
    }

    double jobsPerSecond() {
      return jobs / seconds;
    }

    double at(double q) {
      return latencies[Math.min(latencies.length - 1, (int) Math.ceil(q * latencies.length) - 1)];
    }

    ObjectNode toJson() {
      ObjectNode n = Json.mapper().createObjectNode();
      n.put("p50", at(0.5));
      n.put("p95", at(0.95));
      n.put("p99", at(0.99));
      n.put("max", latencies[latencies.length - 1]);
      double[] us = cpuMicrosPerRequest();
      ObjectNode cpu = n.putObject("cpuMicrosPerRequest");
      cpu.put("api", Math.round(us[0]));
      cpu.put("postgres", Math.round(us[1]));
      cpu.put("client", Math.round(us[2]));
      n.put("cpuCeilingRequestsPerSecond", Math.round(cpuCeiling()));
      return n;
    }
  }

  static void print(String what, Result r) {
    System.out.printf(
        Locale.ROOT,
        "  %-42s %8.0f jobs/s (%6.0f requests/s)  latency ms p50 %5.1f  p95 %5.1f  p99 %5.1f"
            + "  max %6.1f%n",
        what,
        r.jobsPerSecond(),
        r.requests() / r.seconds(),
        r.at(0.5),
        r.at(0.95),
        r.at(0.99),
        r.latencies()[r.latencies().length - 1]);
    double[] us = r.cpuMicrosPerRequest();
    System.out.printf(
        Locale.ROOT,
        "  %-42s CPU per request: API %.0f us, PostgreSQL %.0f us, client %.0f us;"
            + " CPU ceiling on %d cores %.0f requests/s%n",
        "",
        us[0],
        us[1],
        us[2],
        Runtime.getRuntime().availableProcessors(),
        r.cpuCeiling());
  }

  /**
   * {@code clients} senders posting {@code body} to {@code url} as fast as answered for {@code
   * seconds} (negative: a warm-up of at least that many requests), each answer a 201.
   */
  static Result phase(
      String url, String body, int clients, int seconds, int jobsPerRequest, Cpu cpu)
      throws Exception {
    return closedLoop(
        clients,
        seconds,
        jobsPerRequest,
        cpu,
        () -> {
          KeepAliveSender sender = new KeepAliveSender(url, body, 201, apiKey);
          return new LoopClient() {
            @Override
            public void send(Queue<String> failures) {
              sender.sendNotingFailures(failures);
            }

            @Override
            public void close() {
              sender.close();
            }
          };
        });
  }

  /** One client of a closed loop: sends its next request once the last one is answered. */
  interface LoopClient extends AutoCloseable {
    /** Sends one request; a failure goes to {@code failures} (the phase then fails at its end). */
    void send(Queue<String> failures);

    @Override
    void close();
  }

  /**
   * {@code clients} clients (each from {@code newClient}, on a virtual thread) sending as fast as
   * answered for {@code seconds} (negative: a warm-up of at least that many requests, at least 5 s
   * and at most 2 minutes); the latencies and the CPU the API, PostgreSQL and this process used.
   */
  static Result closedLoop(
      int clients, int seconds, int jobsPerRequest, Cpu cpu, Supplier<LoopClient> newClient)
      throws Exception {
    double[] cpuBefore = cpu.now();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong requests = new AtomicLong();
    ConcurrentLinkedQueue<Double> latencies = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    long started = System.nanoTime();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < clients; c++) {
        Future<?> unused = // the pool's close() waits for every sender
            pool.submit(
                () -> {
                  try (LoopClient client = newClient.get()) {
                    while (running.get()) {
                      long t0 = System.nanoTime();
                      client.send(failures);
                      latencies.add((System.nanoTime() - t0) / 1e6);
                      requests.incrementAndGet();
                    }
                  }
                  return null;
                });
      }
      if (seconds > 0) {
        Thread.sleep(seconds * 1_000L);
      } else {
        // a warm-up: at least 5 s and -seconds requests, at most 2 minutes
        long deadline = System.nanoTime() + 120_000_000_000L;
        Thread.sleep(5_000);
        while (requests.get() < -seconds && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
      }
      running.set(false);
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    double[] cpuAfter = cpu.now();
    double[] cpuUsed = new double[cpuAfter.length];
    for (int i = 0; i < cpuUsed.length; i++) {
      cpuUsed[i] = cpuAfter[i] - cpuBefore[i];
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(
          failures.size() + " requests failed, first: " + failures.peek());
    }
    double[] sorted = latencies.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    return new Result(requests.get(), requests.get() * jobsPerRequest, elapsed, sorted, cpuUsed);
  }

  /**
   * Single submits at a fixed rate whatever the answers' speed (an open loop, as independent
   * clients behave): request i is due at {@code start + i / rate} and its latency counts from that
   * moment, so a stall shows in the figures of every request it delayed instead of slowing the
   * offered load down (no coordinated omission). {@link #FIXED_RATE_SENDERS} senders, each with its
   * connection, take the requests in turn, so the client costs what it costs in the closed loop.
   *
   * <p>The first {@link #FIXED_RATE_LEAD_IN_SECONDS} seconds run at the same rate on the same
   * connections and are not counted, as every phase here starts with a warm-up: the phase follows
   * the closed loop at full speed, and its first second otherwise measured the change of regime
   * (the senders' 64 connections being opened, what the closed loop left behind) rather than the
   * steady rate: in nine runs of 2026-11-25 the first second's p99 was 14-49 ms against 6-14 ms for
   * the median second.
   */
  static Result fixedRate(String url, String body, int rate, int seconds, Cpu cpu)
      throws Exception {
    int leadIn = rate * FIXED_RATE_LEAD_IN_SECONDS;
    int measured = rate * seconds;
    int total = leadIn + measured;
    double[] latencies = new double[total];
    AtomicLong next = new AtomicLong();
    Semaphore released = new Semaphore(0);
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    double[] cpuBefore = null;
    long start = System.nanoTime() + 50_000_000L;
    long measuredFrom = start + FIXED_RATE_LEAD_IN_SECONDS * 1_000_000_000L;
    LocalTime startedAt =
        LocalTime.now(ZoneId.systemDefault()).plusNanos(measuredFrom - System.nanoTime());
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < FIXED_RATE_SENDERS; c++) {
        Future<?> unused = // the pool's close() waits for every sender
            pool.submit(
                () -> {
                  try (KeepAliveSender sender = new KeepAliveSender(url, body, 201, apiKey)) {
                    while (true) {
                      released.acquire();
                      long i = next.getAndIncrement();
                      if (i >= total) {
                        return null;
                      }
                      long due = start + (long) (i * 1e9 / rate);
                      sender.sendNotingFailures(failures);
                      latencies[(int) i] = (System.nanoTime() - due) / 1e6;
                    }
                  }
                });
      }
      // The pacer: every half millisecond it releases the requests that have come due, so senders
      // wait on a semaphore instead of each on a timer of its own (which cost the client half as
      // much CPU again as the requests themselves).
      long releasedSoFar = 0;
      while (releasedSoFar < total) {
        if (cpuBefore == null && System.nanoTime() >= measuredFrom) {
          cpuBefore = cpu.now();
        }
        long dueNow = (long) ((System.nanoTime() - start) * (double) rate / 1e9) + 1;
        long release = Math.min(total, Math.max(0, dueNow)) - releasedSoFar;
        if (release > 0) {
          released.release((int) release);
          releasedSoFar += release;
        }
        LockSupport.parkNanos(500_000);
      }
      released.release(FIXED_RATE_SENDERS); // each sender then finds nothing left and stops
    }
    double elapsed = (System.nanoTime() - measuredFrom) / 1e9;
    double[] cpuAfter = cpu.now();
    double[] cpuUsed = new double[cpuAfter.length];
    for (int i = 0; i < cpuUsed.length; i++) {
      // set by the pacer, at the latest when it releases the last request (always measured)
      cpuUsed[i] = cpuAfter[i] - cpuBefore[i];
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(
          failures.size() + " requests failed, first: " + failures.peek());
    }
    StringBuilder perSecond = new StringBuilder();
    for (int second = 0; second < seconds; second++) {
      int from = leadIn + second * rate;
      double[] slice = Arrays.copyOfRange(latencies, from, from + rate);
      Arrays.sort(slice);
      perSecond.append(second == 0 ? "" : " ").append(Math.round(slice[(int) (0.99 * rate)]));
    }
    System.out.println(
        "  fixed rate from "
            + startedAt.truncatedTo(ChronoUnit.MILLIS)
            + " (after "
            + FIXED_RATE_LEAD_IN_SECONDS
            + " s not counted), p99 of each second, ms: "
            + perSecond);
    double[] counted = Arrays.copyOfRange(latencies, leadIn, total);
    Arrays.sort(counted);
    return new Result(measured, measured, elapsed, counted, cpuUsed);
  }

  static boolean ping(String base) {
    try {
      HttpRequest r =
          HttpRequest.newBuilder(URI.create(base + "?limit=1"))
              .timeout(Duration.ofSeconds(2))
              .header("Authorization", "Bearer " + BenchSupport.API_KEY)
              .build();
      return HTTP.send(r, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
