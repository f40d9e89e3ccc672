"""One Punctual for every test module: started by the first module's setUpModule, stopped at exit.

Remote workers are told to heartbeat every 0.5 s and are taken for dead after 3 s of silence, so
that stops and losses show within a second or two (the defaults are 5 s and 15 s).
"""

from __future__ import annotations

import atexit
import itertools
import os
import signal
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import punctual  # noqa: E402

from .devserver import DevServer  # noqa: E402

OVERLAY = """\
api:
  remoteWorkers:
    leaseTtl: PT3S
    heartbeatInterval: PT0.5S
"""

_server: DevServer | None = None
_names = itertools.count(1)


def server() -> DevServer:
    global _server
    if _server is None:
        if threading.current_thread() is threading.main_thread():
            # SIGTERM (a CI timeout): stop the server, then exit at once (unittest would take a
            # SystemExit for a test's error and go on).
            signal.signal(signal.SIGTERM, _terminated)
        _server = DevServer(OVERLAY).start()
        atexit.register(_server.stop)
    return _server


def _terminated(*_):
    if _server is not None:
        _server.stop()
    os._exit(143)


def namespace(prefix: str = "py") -> str:
    """A namespace of its own for one test: jobs of other tests never reach its worker."""
    return f"{prefix}-{next(_names)}-{uuid.uuid4().hex[:6]}"


def admin(ns: str = "default") -> punctual.Client:
    s = server()
    return punctual.Client(s.base_url, s.admin_key, ns)


def worker_key(ns: str) -> str:
    """A key of role worker for ``ns`` only: what a real worker runs with."""
    with admin(ns) as client:
        return client.create_key(f"py-worker-{ns}", "worker", [ns])["secret"]


def wait_until(condition, timeout: float = 10.0, message: str = "condition"):
    """Polls ``condition`` (every 20 ms) until it answers something truthy; returns that."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{message}: not within {timeout} s")
        time.sleep(0.02)
