"""``qajudge.Client`` follows no redirect: a server (or whatever answers at
its address) that redirects to another host must not receive the token.
Two small HTTP servers on loopback addresses: one redirects every request to
the other, which records what reaches it."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Iterator, List, Tuple

import pytest

from qajudge import Client, QajudgeError, ServiceError

TOKEN = "s3cret-token-for-the-test"


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: List[Tuple[str, str, dict]] = []

    def _answer(self) -> None:
        type(self).seen.append((self.command, self.path, dict(self.headers)))
        body = json.dumps({"status": "ok", "version": "x", "store": {"state": "ok"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


def _redirector(target: str, code: int) -> type:
    class Redirect(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.send_response(code)
            self.send_header("Location", target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    return Redirect


def _serve(host: str, handler: type) -> Tuple[http.server.HTTPServer, str]:
    server = http.server.HTTPServer((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"


@pytest.fixture()
def recorder() -> Iterator[str]:
    _Recorder.seen = []
    # another host: 127.0.0.2 is on the loopback network too
    server, url = _serve("127.0.0.2", _Recorder)
    yield url
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_refused_and_the_token_stays(recorder: str, code: int) -> None:
    server, url = _serve("127.0.0.1", _redirector(recorder, code))
    try:
        client = Client(url, token=TOKEN, timeout=10)
        with pytest.raises(ServiceError) as e:
            client.health()
        assert e.value.status == code and e.value.code == "redirect_refused"
        assert recorder in str(e.value)
        assert isinstance(e.value, QajudgeError)
        with pytest.raises(ServiceError):
            client.sameas(["http://dbpedia.org/resource/Berlin"])
        with pytest.raises(ServiceError):
            client.experiment("abc", token=TOKEN)
    finally:
        server.shutdown()
        server.server_close()
    # nothing reached the other host, so no token did
    assert _Recorder.seen == []


def test_the_recorder_answers_a_client_that_asks_it_directly(recorder: str) -> None:
    # the recorder works: without a redirect the request and its token arrive
    Client(recorder, token=TOKEN, timeout=10).health()
    [(method, path, headers)] = _Recorder.seen
    assert (method, path) == ("GET", "/api/v1/health")
    assert headers.get("Authorization") == f"Bearer {TOKEN}"
