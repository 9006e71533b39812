"""HTTPS front of the simulated array: authentication, routing, JSON on the wire.

Authentication is the REST 2.x API-token flow py-pure-client uses: ``POST /api/login``
with an ``api-token`` header answers a session token in the ``x-auth-token`` response
header; every ``/api/2.x/...`` request carries it back in ``x-auth-token``. A missing,
unknown or idle-expired session answers 401, upon which the client logs in again once.
"""

from __future__ import annotations

import json
import secrets
import ssl
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .array import SimulatedArray
from .errors import ApiError
from .query import Query

SESSION_IDLE_TIMEOUT_S = 1800  # the array's default idle_timeout (30 min)
MAX_BODY = 4 * 1024 * 1024


def load_tokens(token_file: Path | None, env_value: str | None) -> dict[str, str]:
    """API tokens the array accepts, mapped to the user each belongs to.

    File: one ``TOKEN [USERNAME]`` per line, ``#`` comments. Env: tokens separated by
    whitespace or commas. The user defaults to ``pureuser``, the array's admin.
    """
    tokens: dict[str, str] = {}
    if token_file is not None:
        for line in token_file.read_text(encoding="utf-8").splitlines():
            fields = line.split("#", 1)[0].split()
            if fields:
                tokens[fields[0]] = fields[1] if len(fields) > 1 else "pureuser"
    if env_value:
        for token in env_value.replace(",", " ").split():
            tokens.setdefault(token, "pureuser")
    return tokens


class Sessions:
    def __init__(self, idle_timeout_s: float = SESSION_IDLE_TIMEOUT_S) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[str, float]] = {}
        self.idle_timeout_s = idle_timeout_s

    def open(self, username: str) -> str:
        token = secrets.token_hex(16)
        with self._lock:
            self._sessions[token] = (username, time.monotonic())
        return token

    def check(self, token: str | None) -> str | None:
        """The session's user, refreshing its idle timer; None when not valid."""
        if not token:
            return None
        with self._lock:
            entry = self._sessions.get(token)
            if entry is None:
                return None
            username, last = entry
            now = time.monotonic()
            if now - last > self.idle_timeout_s:
                del self._sessions[token]
                return None
            self._sessions[token] = (username, now)
            return username

    def close(self, token: str | None) -> bool:
        with self._lock:
            return self._sessions.pop(token or "", None) is not None


class SimServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        array: SimulatedArray,
        tokens: Mapping[str, str],
        *,
        tls: ssl.SSLContext | None,
        quiet: bool = False,
    ) -> None:
        super().__init__(address, SimHandler)
        self.array = array
        self.tokens = dict(tokens)
        self.sessions = Sessions()
        self.quiet = quiet
        if tls is not None:
            # Handshake in the worker thread (first read), so one stalled client
            # cannot block the accept loop.
            self.socket = tls.wrap_socket(
                self.socket, server_side=True, do_handshake_on_connect=False
            )

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        scheme = "https" if isinstance(self.socket, ssl.SSLSocket) else "http"
        return f"{scheme}://{host}:{port}"


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(str(cert), str(key))
    return context


class SimHandler(BaseHTTPRequestHandler):
    server: SimServer
    protocol_version = "HTTP/1.1"
    server_version = "FlashBladeSim/1.0"
    sys_version = ""

    # -- plumbing ----------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(f"flashblade_sim: {self.address_string()} {format % args}\n")

    def _send(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        request_id = self.headers.get("X-Request-ID")
        if request_id:
            self.send_header("X-Request-ID", request_id)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if payload and self.command != "HEAD":
            self.wfile.write(payload)

    def _error(self, error: ApiError) -> None:
        self._send(error.status, error.body())

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ApiError(413, "Request body too large.")
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ApiError(400, "Request body is not valid JSON.") from None

    # -- verbs ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        try:
            parts = urlsplit(self.path)
            body = self._read_body()
            path = parts.path.rstrip("/")
            if path == "/api/api_version" and method == "GET":
                self._send(200, {"versions": self.server.array.versions})
            elif path == "/api/login" and method == "POST":
                self._login()
            elif path == "/api/logout" and method == "POST":
                self.server.sessions.close(self.headers.get("x-auth-token"))
                self._send(200, {})
            elif path.startswith("/api/"):
                self._api(method, path, Query(parts.query), body)
            else:
                raise ApiError(404, f"Not found: {parts.path}")
        except ApiError as error:
            self._error(error)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # one bad request must not kill the simulator
            self._error(ApiError(500, f"Simulator error: {type(exc).__name__}: {exc}"))
            if not self.server.quiet:
                traceback.print_exc()

    def _login(self) -> None:
        api_token = self.headers.get("api-token")
        if not api_token:
            raise ApiError(401, "An API token is required in the 'api-token' header.")
        username = self.server.tokens.get(api_token)
        if username is None:
            raise ApiError(401, "Invalid API token.", "api-token")
        session = self.server.sessions.open(username)
        self._send(200, {"username": username}, {"x-auth-token": session})

    def _api(self, method: str, path: str, query: Query, body: Any) -> None:
        segments = path.split("/")  # ['', 'api', '2.17', 'file-systems', ...]
        if len(segments) < 4:
            raise ApiError(404, f"Not found: {path}")
        version = segments[2]
        if version not in self.server.array.versions or not version.startswith("2."):
            raise ApiError(404, f"REST API version {version} is not supported by this array.")
        if self.server.sessions.check(self.headers.get("x-auth-token")) is None:
            raise ApiError(
                401, "Authentication required: log in with an API token.", "x-auth-token"
            )
        resource = "/".join(segments[3:])
        result = self.server.array.handle(method, resource, query, body)
        self._send(HTTPStatus.OK, {} if result is None else result)


def serve_in_thread(server: SimServer) -> threading.Thread:
    """Run a server in a daemon thread (tests); stop with server.shutdown()."""
    thread = threading.Thread(target=server.serve_forever, name="flashblade-sim", daemon=True)
    thread.start()
    return thread
