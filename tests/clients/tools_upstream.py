"""A recording OpenAI-compatible upstream for tests/tests/relay.rs: a test double that answers
by a fixed rule and writes every request body it receives, byte for byte, to a file, so the
test can check exactly what localm forwarded.

Usage: tools_upstream.py RECORD_FILE. Prints "port N" once listening.
- GET /v1/models: one model, "upstream-model".
- POST /v1/chat/completions (streamed or not, as asked):
  - last message a tool result: the answer "It is 12 degrees in Leith.";
  - else, tools offered: one call of the first tool, arguments {"city": "Leith"}, sent in
    pieces when streamed;
  - else: "hello from upstream".
  A last message "wait N: ..." makes it send nothing at all (not even the status line) for
  N seconds first; a streamed one starting "break" stops after its first piece, closing the
  connection with no finish_reason and no [DONE]."""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORD = sys.argv[1]
ANSWER = "It is 12 degrees in Leith."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/") == "/v1/models":
            self.send_json(200, {"object": "list", "data": [
                {"id": "upstream-model", "object": "model", "created": 1, "owned_by": "test"}]})
        else:
            self.send_json(404, {"error": {"message": "no such route", "code": "not_found"}})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(RECORD, "ab") as f:
            f.write(raw.replace(b"\n", b" ") + b"\n")
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self.send_json(404, {"error": {"message": "no such route"}})
        body = json.loads(raw)
        last = body["messages"][-1]
        text = last.get("content") if isinstance(last.get("content"), str) else ""
        if text.startswith("wait "):
            time.sleep(float(text[5:].split(":")[0]))
        base = {"id": "chatcmpl-up", "created": 1, "model": body.get("model") or "upstream-model"}
        if last.get("role") == "tool":
            pieces, calls, finish = ["It is 12 ", "degrees in Leith."], None, "stop"
        elif body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            pieces = [None]
            calls = [{"index": 0, "id": "call_w1", "type": "function",
                      "function": {"name": name, "arguments": "{\"city\": "}},
                     {"index": 0, "function": {"arguments": "\"Leith\"}"}}]
            finish = "tool_calls"
        else:
            pieces, calls, finish = ["hello ", "from upstream"], None, "stop"
        if not body.get("stream"):
            message = {"role": "assistant", "content": "".join(p for p in pieces if p) or None}
            if calls:
                message["tool_calls"] = [{"id": "call_w1", "type": "function", "function": {
                    "name": calls[0]["function"]["name"], "arguments": "{\"city\": \"Leith\"}"}}]
            return self.send_json(200, dict(base, object="chat.completion", choices=[
                {"index": 0, "message": message, "finish_reason": finish}],
                usage={"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def event(delta, finish_reason=None):
            chunk = dict(base, object="chat.completion.chunk",
                         choices=[{"index": 0, "delta": delta, "finish_reason": finish_reason}])
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        event({"role": "assistant", "content": ""})
        if text.startswith("break"):
            event({"content": pieces[0]})
            return  # the connection closes mid-reply: no finish_reason, no [DONE]
        for p in pieces:
            if p:
                event({"content": p})
        for c in calls or []:
            event({"tool_calls": [c]})
        event({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = dict(base, object="chat.completion.chunk", choices=[],
                         usage={"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8})
            self.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
