// A TypeScript-SDK client for the cross-language test: submits one "cross.python" job with a
// traceparent and prints its id.
import { Client } from "../../../typescript/src/index.js";

const [baseUrl, apiKey, namespace, traceparent] = process.argv.slice(2);
const client = new Client({ baseUrl, apiKey, namespace });
const job = await client.submit({ type: "cross.python", payload: { from: "node" } }, { traceparent });
console.log(job.id);
