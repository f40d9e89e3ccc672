"""JSON over HTTP/1.1 with kept-alive connections: one per thread, or one a caller owns."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.parse
from typing import Any

from .errors import FieldError, PunctualConnectionError, PunctualProblem

USER_AGENT = "punctual-python/0.1.0"

# A request sent on a kept-alive connection that the server had closed meanwhile fails with one of
# these before any answer: it is sent once more on a fresh connection.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


class Connection:
    """One HTTP connection to the API, reopened when it breaks. Not thread-safe: one user at a time."""

    def __init__(self, scheme: str, host: str, port: int | None) -> None:
        self._scheme = scheme
        self._host = host
        self._port = port
        self._conn: http.client.HTTPConnection | None = None
        self._aborted = False

    def _open(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=timeout)
        self._conn.timeout = timeout
        if self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def abort(self) -> None:
        """Breaks a request in flight on another thread (it raises); used to end a long poll."""
        self._aborted = True
        conn = self._conn
        sock = conn.sock if conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def exchange(
        self, method: str, target: str, body: bytes | None, headers: dict[str, str], timeout: float
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        self._aborted = False
        for tries in (1, 2):
            fresh = self._conn is None or self._conn.sock is None
            conn = self._open(timeout)
            try:
                conn.request(method, target, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                if response.will_close:
                    self.close()
                return response.status, response.headers, data
            except _STALE as e:
                self.close()
                if fresh or tries == 2 or self._aborted:
                    raise PunctualConnectionError(f"{method} {target}: {e!r}") from e
            except (OSError, http.client.HTTPException) as e:
                self.close()
                raise PunctualConnectionError(f"{method} {target}: {e!r}") from e
        raise AssertionError("unreachable")


class Http:
    """The API at ``base_url``, as one key in one namespace: sends JSON, answers JSON or raises."""

    def __init__(self, base_url: str, api_key: str | None, namespace: str | None, timeout: float = 30.0):
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/") + "/api/v1"
        self._headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        if namespace:
            self._headers["Punctual-Namespace"] = namespace
        self.namespace = namespace
        self.timeout = timeout
        self._local = threading.local()
        self._connections: list[Connection] = []
        self._connections_lock = threading.Lock()

    def connection(self) -> Connection:
        """A new connection of one's own (a long poll that another thread may abort)."""
        conn = Connection(self._scheme, self._host, self._port)
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def _thread_connection(self) -> Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self.connection()
        return conn

    def close(self) -> None:
        """Closes every connection it opened (a later request opens a new one)."""
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        conn: Connection | None = None,
    ) -> Any:
        """Sends ``body`` as JSON (any change is sent as JSON, even without a body); answers the
        parsed JSON of a 2xx (None when empty) or raises PunctualProblem / PunctualConnectionError."""
        target = self._prefix + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                target += "?" + urllib.parse.urlencode(q)
        all_headers = dict(self._headers)
        data = None
        if method != "GET":
            all_headers["Content-Type"] = "application/json"
            data = b"" if body is None else json.dumps(body, separators=(",", ":"), allow_nan=False).encode()
            all_headers["Content-Length"] = str(len(data))
        if headers:
            all_headers.update({k: v for k, v in headers.items() if v is not None})
        status, answer_headers, raw = (conn or self._thread_connection()).exchange(
            method, target, data, all_headers, timeout or self.timeout
        )
        if 200 <= status < 300:
            return json.loads(raw) if raw else None
        raise problem_from(status, answer_headers, raw)


def problem_from(status: int, headers: http.client.HTTPMessage, raw: bytes) -> PunctualProblem:
    """The problem a non-2xx answer carries (or one made of its status when it is not JSON)."""
    body: Any = None
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")[:500]
    retry_after = None
    if headers.get("Retry-After"):
        try:
            retry_after = float(headers["Retry-After"])
        except ValueError:
            pass
    if not isinstance(body, dict):
        return PunctualProblem(status, title=f"HTTP {status}", detail=body if isinstance(body, str) else None,
                               retry_after=retry_after, body=body)
    errors = [
        FieldError(str(e.get("field")), str(e.get("message")))
        for e in body.get("errors") or []
        if isinstance(e, dict)
    ]
    return PunctualProblem(
        status,
        type=body.get("type"),
        title=body.get("title"),
        detail=body.get("detail"),
        field=body.get("field"),
        errors=errors,
        instance=body.get("instance"),
        retry_after=retry_after,
        body=body,
    )
