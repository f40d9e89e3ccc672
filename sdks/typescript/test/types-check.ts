// Compiled by `tsc` (npm run typecheck, and contract.test.mjs): the README's example, typed.
// It is never run; a declaration that does not fit how the SDK is meant to be used fails here.
import {
  Client,
  Worker,
  PunctualProblem,
  JobWaitTimeoutError,
  NonRetryableError,
  RetryAfterError,
  type Job,
  type JobContext,
  type LogPage,
} from "@punctual/sdk";

interface Resize {
  url: string;
  width: number;
}

export async function example(): Promise<void> {
  const client = new Client({ baseUrl: "http://localhost:8080", apiKey: "pct_...", namespace: "media" });
  const job: Job = await client.submit(
    { type: "resize", payload: { url: "https://example.com/a.png", width: 200 }, maxAttempts: 5, backoff: { strategy: "fixed", delay: "PT2S" } },
    { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
  );
  const [a, b] = await client.submitBatch([{ type: "resize" }, { type: "resize", priority: "high" }]);
  const wf = await client.submitWorkflow({
    jobs: [
      { ref: "a", type: "resize" },
      { ref: "b", type: "resize", dependsOn: [{ ref: "a" }] },
    ],
  });
  const status: string = wf.jobs[0].status;
  try {
    const done = await client.awaitFinal(job.id, { timeoutMs: 30_000 });
    const result = done.result;
    void result;
  } catch (e) {
    if (e instanceof JobWaitTimeoutError) console.log(e.job.status, e.waitedMs);
    if (e instanceof PunctualProblem) console.log(e.status, e.kind, e.field, e.errors.map((x) => x.message));
  }
  const page: LogPage = await client.logs(job.id, { attempt: 1, after: 0 });
  const lines: string[] = page.lines.map((l) => `${l.seq} ${l.line}`);
  await client.cancel(b.id);
  void [a, status, lines];

  const worker = new Worker({
    baseUrl: "http://localhost:8080",
    apiKey: "pct_...",
    namespace: "media",
    concurrency: 8,
    handlers: {
      resize: async (ctx: JobContext<Resize>) => {
        ctx.progress(0, ctx.payload.width);
        ctx.log(`resizing ${ctx.payload.url} (attempt ${ctx.attempt}, job ${ctx.jobId})`);
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (!ctx.payload.url.startsWith("https:")) throw new NonRetryableError("only https");
        if (ctx.attempt < 2) throw new RetryAfterError(5_000, "busy");
        ctx.progress(100);
        return { width: ctx.payload.width, trace: ctx.traceparent };
      },
    },
  });
  const reg = await worker.start();
  const interval: number = reg.heartbeatIntervalMs;
  void interval;
  await worker.stop({ timeoutMs: 30_000 });
  const refused: number = worker.stats.refused;
  void refused;
}
