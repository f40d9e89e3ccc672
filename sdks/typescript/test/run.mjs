// `npm test`: one Punctual for every test file, then `node --test` over them.
// PUNCTUAL_TEST_BASE_URL, PUNCTUAL_TEST_ADMIN_KEY and PUNCTUAL_TEST_ADMIN_URL given: use that one.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { SDK_DIR, startPunctual } from "./punctual.mjs";

const only = process.argv.slice(2);
const files = (only.length ? only : readdirSync(path.join(SDK_DIR, "test")).filter((f) => f.endsWith(".test.mjs")).map((f) => `test/${f}`)).sort();

let punctual = null;
const env = { ...process.env };
if (!env.PUNCTUAL_TEST_BASE_URL) {
  const started = performance.now();
  punctual = await startPunctual();
  console.log(`punctual dev at ${punctual.baseUrl} (admin ${punctual.adminUrl}), up in ${Math.round(performance.now() - started)} ms`);
  Object.assign(env, {
    PUNCTUAL_TEST_BASE_URL: punctual.baseUrl,
    PUNCTUAL_TEST_ADMIN_URL: punctual.adminUrl,
    PUNCTUAL_TEST_ADMIN_KEY: punctual.adminKey,
  });
}

const stopAll = async (keep = false) => {
  if (punctual) await punctual.stop({ keep });
};
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await stopAll();
    process.exit(130);
  });
}

const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, ["--test", "--test-concurrency=3", ...files], { cwd: SDK_DIR, env, stdio: "inherit" });
  child.on("exit", (c, s) => resolve(c ?? (s ? 1 : 0)));
});
if (code !== 0 && punctual) console.error(`tests failed; Punctual's log is kept: ${punctual.logFile}`);
const stopping = performance.now();
await stopAll(code !== 0);
if (punctual) console.log(`punctual dev stopped in ${Math.round(performance.now() - stopping)} ms`);
process.exit(code);
