"""Starts a real Punctual (``punctual.jar dev``: API, Java worker, planner, reaper on an embedded
PostgreSQL and Redis) on free loopback ports for the tests and the benchmark, and stops it.

The jar is ``deploy/target/punctual.jar`` of the repository (``PUNCTUAL_JAR`` overrides it); build it
with ``./mvnw -B -o -q package -pl deploy -am -DskipTests``. Java: ``$JAVA_HOME/bin/java`` (a JDK >=
21; ``run-tests`` finds one), else ``java`` on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _java_feature(java: str) -> int:
    """The feature version (17, 21, 25) of the java binary, or 0."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
        return int(out.split('"')[1].split(".")[0])
    except (OSError, IndexError, ValueError, subprocess.SubprocessError):
        return 0


def _java() -> str:
    """A java >= 21: $JAVA_HOME's, else the newest under /usr/lib/jvm, else the one on PATH."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(os.path.join(os.environ["JAVA_HOME"], "bin", "java"))
    jvms = Path("/usr/lib/jvm")
    if jvms.is_dir():
        candidates += sorted((str(p / "bin" / "java") for p in jvms.iterdir()), reverse=True)
    candidates.append(shutil.which("java") or "java")
    for java in candidates:
        if os.access(java, os.X_OK) and _java_feature(java) >= 21:
            return java
    raise RuntimeError("no java >= 21 found (set JAVA_HOME)")


class DevServer:
    """``punctual dev`` in a temporary data directory; ``overlay`` is YAML laid over the bundled
    configuration (``api.remoteWorkers.leaseTtl`` shortened for a fault test, say)."""

    def __init__(self, overlay: str = "", start_timeout: float = 180.0) -> None:
        self.overlay = overlay
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.tmp: Path | None = None
        self.base_url = ""
        self.admin_url = ""
        self.admin_key = ""

    def start(self) -> "DevServer":
        jar = Path(os.environ.get("PUNCTUAL_JAR", REPO / "deploy" / "target" / "punctual.jar"))
        if not jar.is_file():
            raise RuntimeError(f"{jar} is missing: build it (./mvnw -B -o -q package -pl deploy -am -DskipTests)")
        self.tmp = Path(tempfile.mkdtemp(prefix="punctual-py-"))
        http_port, admin_port = _free_port(), _free_port()
        self.base_url = f"http://127.0.0.1:{http_port}"
        self.admin_url = f"http://127.0.0.1:{admin_port}"
        java = _java()
        # Netty (in the Redis client) uses sun.misc.Unsafe; JDK 24+ warns about it at start.
        args = [java, "--sun-misc-unsafe-memory-access=allow"] if _java_feature(java) >= 24 else [java]
        args += os.environ.get("PUNCTUAL_TEST_JAVA_OPTS", "-Xmx768m").split()
        args += ["-jar", str(jar), "dev", "--fresh"]
        if self.overlay:
            overlay = self.tmp / "overlay.yml"
            overlay.write_text(self.overlay)
            args.append(str(overlay))
        env = dict(os.environ)
        env.update(
            PUNCTUAL_DATA_DIR=str(self.tmp / "data"),
            PUNCTUAL_HTTP_PORT=str(http_port),
            PUNCTUAL_ADMIN_PORT=str(admin_port),
            PUNCTUAL_BOOTSTRAP_KEY="",  # dev makes its own admin key: <dataDir>/admin.key
        )
        self.log_path = self.tmp / "dev.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(args, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                        cwd=self.tmp, start_new_session=True)
        try:
            self._await_healthy()
        except BaseException:
            self.stop()  # its log's tail is in the error
            raise
        self.admin_key = (self.tmp / "data" / "admin.key").read_text().strip()
        return self

    def _await_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"punctual dev exited with {self.process.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.admin_url + "/healthcheck", timeout=2) as r:
                    checks = json.loads(r.read())
                    if r.status == 200 and all(c.get("healthy") for c in checks.values()):
                        if (self.tmp / "data" / "admin.key").is_file():
                            return
            except (OSError, ValueError):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"punctual dev not healthy within {self.start_timeout} s:\n{self.tail()}")

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM (dev stops its worker, Redis and PostgreSQL), SIGKILL after 60 s."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "_log", None):
            self._log.close()
        if self.tmp and not os.environ.get("PUNCTUAL_TEST_KEEP"):
            shutil.rmtree(self.tmp, ignore_errors=True)
