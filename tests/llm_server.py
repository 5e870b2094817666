#!/usr/bin/env python3
"""A chat-completions server for the LLM judge's tests (stdlib only, loopback,
bounded life). It answers POST /v1/chat/completions as an OpenAI-compatible
server does, deciding by a rule instead of a model:

- answers: `same` when the gold answer's text (IRIs in <...> left out) and the
  system answer share a word (lower-cased runs of letters and digits),
  `different` otherwise;
- queries: `same` when both queries name the same set of <IRIs>;
- a system answer holding MALFORMED gets a reply that is no verdict;
- the second prompt (fields `answer_a`/`answer_b`, `query_a`/`query_b`):
  `equivalent` or `distinct` by the same rules.

GET /calls gives {"calls": N, "bearer": M}: the POSTs received, and how many
carried `Authorization: Bearer KEY` for the key of --expect-key. Options:
--fail-first N answers the first N POSTs with HTTP 500; --hang never answers
(each request sleeps until the server's life ends); --stall-body sends the
head and the start of a body, then nothing; --style yes-no replies
"Yes." and "No." in place of same and different; --obey says same to a
system answer that asks for it, as a model fooled by a prompt injection
would. The user message is the judge's JSON object (its labelled-text form,
of earlier prompt versions, is read too). The first line on stdout is
`listening on http://127.0.0.1:PORT`.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"calls": 0, "bearer": 0}


def words(text):
    return set(re.findall(r"[a-z0-9]+", re.sub(r"<[^>]*>", " ", text.lower())))


def field(content, name):
    """The text after `name:` up to the next known label or the end."""
    m = re.search(re.escape(name) + r":\n?(.*?)(?:\n(?:Question|Gold answer|System answer|Gold SPARQL query|System SPARQL query|Do the)\b|\Z)", content, re.S)
    return m.group(1).strip() if m else ""


def decide(content):
    if content.startswith("{"):
        # the JSON user message: its fields are data
        fields = json.loads(content)
        if "answer_a" in fields or "query_a" in fields:
            return check(fields)
        if ARGS.obey and obeys(fields.get("system_answer", "")):
            return "same"
        if ARGS.obey and "gold_query" in fields:
            # obedient, and otherwise of the opinion that queries differ
            return "same" if "reply with same" in fields["system_query"].lower() else "different"
        if "gold_query" in fields:
            gold = set(re.findall(r"<[^>]*>", fields["gold_query"]))
            run = set(re.findall(r"<[^>]*>", fields["system_query"]))
            return "same" if gold == run else "different"
        gold, run = fields["gold_answer"], fields["system_answer"]
        if "MALFORMED" in run:
            return "I would rather not say"
        return "same" if words(gold) & words(run) else "different"
    if "Gold SPARQL query:" in content:
        gold = set(re.findall(r"<[^>]*>", field(content, "Gold SPARQL query")))
        run = set(re.findall(r"<[^>]*>", field(content, "System SPARQL query")))
        return "same" if gold == run else "different"
    gold = field(content, "Gold answer")
    run = field(content, "System answer")
    if "MALFORMED" in run:
        return "I would rather not say"
    return "same" if words(gold) & words(run) else "different"


def obeys(text):
    """True when an obedient judge does what `text` asks: say same (in
    English, or in German past the judge's phrase list)."""
    return any(p in text.lower() for p in ("answer same", "antworte: same"))


def check(fields):
    """The second prompt ("are they different?"): `distinct` or `equivalent`
    by the same rule; obedient, it says the `same` the text asks for."""
    if "query_a" in fields:
        if ARGS.obey and "reply with same" in fields["query_a"].lower():
            return "same"
        gold = set(re.findall(r"<[^>]*>", fields["query_b"]))
        run = set(re.findall(r"<[^>]*>", fields["query_a"]))
        return "equivalent" if gold == run else "distinct"
    if ARGS.obey and obeys(fields["answer_a"]):
        return "same"
    return "equivalent" if words(fields["answer_b"]) & words(fields["answer_a"]) else "distinct"


def styled(verdict):
    if ARGS.style == "yes-no":
        # the second prompt asks whether they differ: yes is distinct
        return {"same": "Yes.", "different": "No.", "distinct": "Yes.", "equivalent": "No."}.get(verdict, verdict)
    return verdict


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/calls":
            with LOCK:
                self.reply(200, dict(STATE))
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        body = self.rfile.read(length)
        with LOCK:
            STATE["calls"] += 1
            n = STATE["calls"]
            if ARGS.expect_key and self.headers.get("Authorization") == "Bearer " + ARGS.expect_key:
                STATE["bearer"] += 1
        if not self.path.endswith("/chat/completions"):
            self.reply(404, {"error": "not found"})
            return
        if ARGS.hang:
            time.sleep(ARGS.life)
            return
        if ARGS.stall_body:
            # the head, then a body that stops coming
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            self.wfile.flush()
            time.sleep(ARGS.life)
            return
        if n <= ARGS.fail_first:
            self.reply(500, {"error": "try again"})
            return
        try:
            request = json.loads(body)
            content = request["messages"][-1]["content"]
            assert request.get("temperature") == 0 and "seed" in request
        except Exception as e:  # a bad request is the client's bug: say so
            self.reply(400, {"error": str(e)})
            return
        self.reply(200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": request.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": styled(decide(content))}}],
        })


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--life", type=float, default=120.0, help="seconds before the server exits")
    p.add_argument("--expect-key", default="")
    p.add_argument("--fail-first", type=int, default=0)
    p.add_argument("--hang", action="store_true")
    p.add_argument("--stall-body", action="store_true", help="send the head, then stall the body")
    p.add_argument("--style", choices=["words", "yes-no"], default="words")
    p.add_argument("--obey", action="store_true",
                   help="say same to a system answer or query that asks for it (a model a prompt injection fools)")
    ARGS = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Timer(ARGS.life, lambda: os._exit(0)).start()
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
