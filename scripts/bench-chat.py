"""The chat endpoint's benchmark (`scripts/bench chat` runs it): one run, medians and spread.

  python3 scripts/bench-chat.py BIN MODEL.gguf

1. Through the endpoint with the local worker (SmolLM2 by default): time to first token and
   generation tok/s of streamed replies (128 tokens, greedy), after one warm-up turn that loads
   the worker. With LCP_PYTHON set to a Python that has llama-cpp-python, the same prompts (the
   recall block the endpoint injected included) are streamed through llama.cpp's own binding,
   2 threads, side by side.
2. The endpoint's own overhead per turn: the same daemon with `--chat-upstream` pointed at an
   upstream in this script that answers at once, so a turn's time is recall (over 256 facts) +
   forwarding + logging the turn + HTTP, and nothing of a model. p50 and p99 of 300 turns.
"""
import http.client
import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BIN, MODEL = sys.argv[1], sys.argv[2]


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=600)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def daemon(data_dir, extra):
    env = dict(os.environ, LOCALM_DATA_DIR=data_dir, RUST_LOG="warn")
    sock = os.path.join(data_dir, "s.sock")
    p = subprocess.Popen([BIN, "daemon", "--socket", sock, *extra], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            c = UnixConnection(sock)
            c.request("GET", "/api/health")
            if c.getresponse().status == 200:
                return p, sock
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit("the daemon did not start")


def setup(data_dir):
    env = dict(os.environ, LOCALM_DATA_DIR=data_dir)
    run = lambda *a: subprocess.run([BIN, *a], env=env, check=True, capture_output=True)
    run("plugin", "install", "memory")
    run("settings", "set", "mode", "log")
    run("settings", "set", "llm_model", os.path.abspath(MODEL))
    d = os.path.join(data_dir, "memory", "chat")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "memory.jsonl"), "w") as f:
        for i in range(256):
            f.write(json.dumps({"id": f"{i:08x}", "text": f"Fact number {i}: the user works on project {i % 17} and prefers tool {i % 5} for it",
                                "kind": "semantic", "source": "user", "importance": 0.8,
                                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}) + "\n")


def stream_turn(sock, text, max_tokens):
    c = UnixConnection(sock)
    body = json.dumps({"messages": [{"role": "user", "content": text}], "max_tokens": max_tokens,
                       "stream": True, "stream_options": {"include_usage": True}, "session": "bench"})
    t0 = time.perf_counter()
    c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    first = last = None
    tokens = 0
    for raw in r:
        line = raw.decode().strip()
        if not line.startswith("data: {"):
            continue
        chunk = json.loads(line[6:])
        if chunk.get("usage"):
            tokens = chunk["usage"]["completion_tokens"]
        for ch in chunk.get("choices", []):
            if ch["delta"].get("content"):
                now = time.perf_counter()
                first = first or now
                last = now
    return (first - t0) * 1e3, (tokens - 1) / (last - first) if last and last > first else 0.0, tokens


def spread(v, unit, fmt="{:.1f}"):
    s = sorted(v)
    p99 = s[max(0, int(len(s) * 0.99) - 1)]
    return (f"p50 {fmt.format(statistics.median(s))} {unit}  p99 {fmt.format(p99)}  "
            f"min {fmt.format(s[0])}  max {fmt.format(s[-1])}  n {len(s)}")


class Instant(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "instant",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                        "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


LCP = r"""
import json, statistics, sys, time
import llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=4096, n_threads=2, n_threads_batch=2, n_batch=512, verbose=False)
ttft, tps = [], []
for block, text in json.loads(sys.argv[2]):
    msgs = ([{"role": "system", "content": block}] if block else []) + [{"role": "user", "content": text}]
    t0 = time.perf_counter(); first = last = None; n = 0
    for chunk in llm.create_chat_completion(messages=msgs, max_tokens=128, temperature=0, stream=True):
        if chunk["choices"][0]["delta"].get("content"):
            now = time.perf_counter(); first = first or now; last = now; n += 1
    ttft.append((first - t0) * 1e3); tps.append((n - 1) / (last - first))
f = lambda v, u: f"p50 {statistics.median(v):.1f} {u}  min {min(v):.1f}  max {max(v):.1f}  n {len(v)}"
print(f"== the same prompts in llama-cpp-python {llama_cpp.__version__} (2 threads, greedy)")
print(f"time to first token                 {f(ttft, 'ms')}")
print(f"generation                          {f(tps, 'tok/s')}  (chunks per second)")
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        setup(d)
        p, sock = daemon(d, [])
        try:
            stream_turn(sock, "hello", 8)  # loads the worker
            ttft, tps, prompts = [], [], []
            for i in range(10):
                text = f"Write a short story about project {i}."
                a, b, n = stream_turn(sock, text, 128)
                ttft.append(a)
                tps.append(b)
                c = UnixConnection(sock)
                c.request("POST", "/api/memory/recall",
                          json.dumps({"messages": [{"role": "user", "content": text}]}),
                          {"Content-Type": "application/json"})
                prompts.append((json.loads(c.getresponse().read())["block"], text))
            print(f"== chat through the endpoint, local worker ({os.path.basename(MODEL)}, 128 tokens, streamed)")
            print(f"time to first token                 {spread(ttft, 'ms')}")
            print(f"generation                          {spread(tps, 'tok/s')}")
            if os.environ.get("LCP_PYTHON"):
                out = subprocess.run([os.environ["LCP_PYTHON"], "-c", LCP, MODEL, json.dumps(prompts)],
                                     capture_output=True, text=True)
                print(out.stdout.rstrip() or out.stderr[-2000:])
            else:
                print("(set LCP_PYTHON to a Python with llama-cpp-python for llama.cpp's own figures beside these)")
        finally:
            p.terminate()
            p.wait()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Instant)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as d:
        setup(d)
        p, sock = daemon(d, ["--chat-upstream", f"http://127.0.0.1:{server.server_port}/v1"])
        try:
            body = json.dumps({"messages": [{"role": "user", "content": "which tool do I prefer for project 3?"}],
                               "session": "bench"})
            times = []
            for i in range(330):
                c = UnixConnection(sock)
                t0 = time.perf_counter()
                c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                if i >= 30:
                    times.append((time.perf_counter() - t0) * 1e3)
                header = r.getheader("x-localm-memory")
            direct = []
            for i in range(330):
                c = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
                t0 = time.perf_counter()
                c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
                c.getresponse().read()
                if i >= 30:
                    direct.append((time.perf_counter() - t0) * 1e3)
            print("== the endpoint's overhead per turn: recall (256 facts, lexical) + forward + log + HTTP")
            print(f"turn with an instant upstream       {spread(times, 'ms', '{:.2f}')}")
            print(f"                                    header: {header}")
            print(f"the upstream alone, called directly {spread(direct, 'ms', '{:.2f}')}")
            print(f"endpoint's own part (p50 - p50)     {statistics.median(times) - statistics.median(direct):.2f} ms")
        finally:
            p.terminate()
            p.wait()
            server.shutdown()


main()
