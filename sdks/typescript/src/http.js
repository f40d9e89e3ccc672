// The one place that talks HTTP: Node's own fetch, the key and namespace headers, problems.
import { PunctualProblem } from "./errors.js";

/** Options shared by Client and Worker, checked once. */
export function connection({ baseUrl, apiKey, namespace, fetch: fetchImpl } = {}) {
  if (typeof baseUrl !== "string" || !/^https?:\/\//.test(baseUrl)) {
    throw new TypeError(`baseUrl must be an http(s) URL such as http://localhost:8080, not ${baseUrl}`);
  }
  if (apiKey !== undefined && typeof apiKey !== "string") {
    throw new TypeError("apiKey must be a string");
  }
  if (namespace !== undefined && (typeof namespace !== "string" || namespace === "")) {
    throw new TypeError("namespace must be a non-empty string");
  }
  const root = baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return { root, apiKey, namespace, fetch: fetchImpl ?? globalThis.fetch };
}

/**
 * Sends one request to /api/v1`path` and answers its JSON body (null for an empty one); throws a
 * PunctualProblem for any status >= 400.
 */
export async function request(conn, method, path, { body, headers = {}, signal } = {}) {
  const url = `${conn.root}/api/v1${path}`;
  const h = { Accept: "application/json, application/problem+json", ...headers };
  if (conn.apiKey) h.Authorization = `Bearer ${conn.apiKey}`;
  if (conn.namespace) h["Punctual-Namespace"] = conn.namespace;
  // Every change is sent as JSON, even without a body: a server with keys off requires it.
  if (method !== "GET") h["Content-Type"] = "application/json";
  const res = await conn.fetch(url, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (res.status >= 400) {
    let problem;
    try {
      problem = JSON.parse(text);
    } catch {
      problem = null;
    }
    if (!problem || typeof problem !== "object") {
      problem = { status: res.status, title: res.statusText, detail: text.slice(0, 500) || null };
    }
    problem.status ??= res.status;
    const retryAfter = res.headers.get("retry-after");
    throw new PunctualProblem(problem, {
      method,
      url,
      retryAfter: retryAfter === null ? undefined : Number(retryAfter),
    });
  }
  return text === "" ? null : JSON.parse(text);
}

export function encode(id) {
  return encodeURIComponent(String(id));
}
