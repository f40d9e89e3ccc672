// A TypeScript-SDK worker for the cross-language test: runs type "cross.node" in the namespace it
// is given, answering with what it received (payload, traceparent, attempt); stops on SIGTERM.
import { Worker } from "../../../typescript/src/index.js";

const [baseUrl, apiKey, namespace] = process.argv.slice(2);
const worker = new Worker({
  baseUrl,
  apiKey,
  namespace,
  concurrency: 2,
  handlers: {
    "cross.node": async (ctx) => ({
      ranIn: "node",
      payload: ctx.payload,
      traceparent: ctx.traceparent,
      attempt: ctx.attempt,
    }),
  },
});
await worker.start();
console.log("ready");
process.once("SIGTERM", async () => {
  await worker.stop();
  process.exit(0);
});
