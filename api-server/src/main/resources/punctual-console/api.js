// The API client: every call carries the signed-in key as a Bearer token and the chosen namespace
// as Punctual-Namespace. The key lives in sessionStorage only (gone when the tab closes); there is
// no cookie, so a page on another site cannot act with it.

const KEY = 'punctual.key';
const NAMESPACE = 'punctual.namespace';

export const session = {
  key: () => sessionStorage.getItem(KEY),
  namespace: () => sessionStorage.getItem(NAMESPACE),
  signIn(key) {
    sessionStorage.setItem(KEY, key);
  },
  setNamespace(ns) {
    if (ns) sessionStorage.setItem(NAMESPACE, ns);
    else sessionStorage.removeItem(NAMESPACE);
  },
  signOut() {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(NAMESPACE);
  },
};

/** A refusal: the HTTP status and the problem+json body (or null). */
export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem;
  }

  /** 404 or 405 from routing: the endpoint is not on this server (yet). */
  get missingEndpoint() {
    return this.status === 404 || this.status === 405;
  }
}

let onUnauthorized = () => {};
export function whenUnauthorized(callback) {
  onUnauthorized = callback;
}

export async function call(method, path, body, options = {}) {
  const headers = { Accept: 'application/json' };
  const key = session.key();
  if (key) headers.Authorization = 'Bearer ' + key;
  const ns = options.namespace === undefined ? session.namespace() : options.namespace;
  if (ns) headers['Punctual-Namespace'] = ns;
  // Every change is sent as JSON, a body or not: a server with API keys off takes no other.
  if (body !== undefined || method !== 'GET') headers['Content-Type'] = 'application/json';
  const response = await fetch('/api/v1' + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  let parsed = null;
  const text = await response.text();
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      parsed = null;
    }
  }
  if (!response.ok) {
    if (response.status === 401 && !options.quiet401) onUnauthorized();
    throw new ApiError(response.status, parsed);
  }
  return parsed;
}

export const get = (path, options) => call('GET', path, undefined, options);
export const post = (path, body, options) => call('POST', path, body === undefined ? {} : body, options);
export const del = (path) => call('DELETE', path);
export const put = (path, body) => call('PUT', path, body);

/** "?a=1&b=2" of the non-empty entries. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const text = q.toString();
  return text ? '?' + text : '';
}

export const enc = encodeURIComponent;
