// Starts a real Punctual (`punctual dev`: embedded PostgreSQL and Redis) from the jar the Maven
// build produced, on random loopback ports, with a fresh data directory.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, createWriteStream } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = path.resolve(SDK_DIR, "../..");
export const JAR = path.join(REPO, "deploy/target/punctual.jar");

/** Settings the tests need: a remote worker silent for 3 s is taken for dead; heartbeats each 1 s. */
export const TEST_SETTINGS = [
  "-Ddw.api.remoteWorkers.leaseTtl=PT3S",
  "-Ddw.api.remoteWorkers.heartbeatInterval=PT1S",
];

/** Builds deploy/target/punctual.jar once, when it is missing. */
export function ensureJar() {
  if (existsSync(JAR)) return;
  console.error(`building ${JAR} (./mvnw -B -o -q package -pl deploy -am -DskipTests)...`);
  const r = spawnSync("./mvnw", ["-B", "-o", "-q", "package", "-pl", "deploy", "-am", "-DskipTests", "-Dfmt.skip=true"], {
    cwd: REPO,
    stdio: "inherit",
  });
  if (r.status !== 0 || !existsSync(JAR)) throw new Error(`the Maven build did not produce ${JAR}`);
}

/**
 * Starts `punctual dev`; resolves once it serves, with its URLs and admin key.
 * @returns {Promise<{baseUrl: string, adminUrl: string, adminKey: string, stop: () => Promise<void>}>}
 */
export async function startPunctual({ javaOpts = TEST_SETTINGS, timeoutMs = 180_000 } = {}) {
  ensureJar();
  const dataDir = path.join(SDK_DIR, ".test-data", `run-${process.pid}-${Date.now()}`);
  mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(dataDir, "punctual.log");
  const log = createWriteStream(logFile);
  const child = spawn(path.join(REPO, "punctual"), ["dev"], {
    cwd: dataDir,
    env: {
      ...process.env,
      PUNCTUAL_NO_BUILD: "1", // the launcher picks a JDK >= 21 and runs the jar as it is
      PUNCTUAL_DATA_DIR: dataDir,
      PUNCTUAL_HTTP_PORT: "0",
      PUNCTUAL_ADMIN_PORT: "0",
      PUNCTUAL_BOOTSTRAP_KEY: "", // dev makes its own admin key: dataDir/admin.key
      PUNCTUAL_JAVA_OPTS: [process.env.PUNCTUAL_JAVA_OPTS ?? "", ...javaOpts].join(" ").trim(),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      log.write(chunk);
      out += chunk.toString();
      const api = /API\s+(http:\/\/\S+)\/api\/v1\/jobs/.exec(out);
      const health = /Health\s+(http:\/\/\S+)\/healthcheck/.exec(out);
      if (api && health && /Admin key\s+\S+/.test(out)) resolve({ baseUrl: api[1], adminUrl: health[1] });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then(({ code, signal }) =>
      reject(new Error(`punctual dev exited (${code ?? signal}) before serving; see ${logFile}:\n${out.slice(-3000)}`)),
    );
    setTimeout(() => reject(new Error(`punctual dev did not serve within ${timeoutMs} ms; see ${logFile}`)), timeoutMs).unref();
  });
  let urls;
  try {
    urls = await ready;
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  }
  const adminKey = readFileSync(path.join(dataDir, "admin.key"), "utf8").trim();
  return {
    ...urls,
    adminKey,
    dataDir,
    logFile,
    /** Stops it; its data directory (and log) is removed unless `keep` or PUNCTUAL_TEST_KEEP_DATA. */
    async stop({ keep = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const late = setTimeout(() => child.kill("SIGKILL"), 30_000);
        await exited;
        clearTimeout(late);
      }
      log.end();
      if (!keep && !process.env.PUNCTUAL_TEST_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
