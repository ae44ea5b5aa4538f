# The same SmolLM2 prompt and generation sizes as `scripts/bench consolidate`, timed in
# llama.cpp's own Python binding, for comparison (see README, Performance). Needs a venv with
# llama-cpp-python built from PyPI (it compiles llama.cpp: several minutes):
#   python3 -m venv /tmp/lcp && /tmp/lcp/bin/pip install llama-cpp-python
#   /tmp/lcp/bin/python scripts/bench-llama-cpp-python.py test-models/SmolLM2-135M-Instruct.Q4_1.gguf [474]
# (or LOCALM_BENCH_LLAMA_CPP_PYTHON=/tmp/lcp/bin/python scripts/bench consolidate). A second
# argument keeps only that prompt size.
import os, statistics, sys, time
import llama_cpp
from llama_cpp import Llama
m = sys.argv[1]
llm = Llama(model_path=m, n_ctx=4096, n_threads=2, n_threads_batch=2, n_batch=512, verbose=False)
base = ("user: Hi, I'm Priya. I work as a firmware engineer at Nordlys Instruments in Trondheim.\n"
        "assistant: Understood. Check the USB emulator's timeout and retry logic.\n")
def run(n_prompt_target, n_gen):
    text = base
    while len(llm.tokenize(text.encode())) < n_prompt_target:
        text += base
    toks = llm.tokenize(text.encode())[:n_prompt_target]
    llm.reset()
    t0 = time.perf_counter(); llm.eval(toks); t1 = time.perf_counter()
    gen = 0
    t2 = time.perf_counter()
    for _ in range(n_gen):
        tok = llm.sample(temp=0.0)
        llm.eval([tok]); gen += 1
    t3 = time.perf_counter()
    return len(toks) / (t1 - t0), gen / (t3 - t2)
sizes = [int(a) for a in sys.argv[2:]] or [474, 2148]
for n_prompt in sizes:
    pp, tg = [], []
    for _ in range(5):
        a, b = run(n_prompt, 128 if n_prompt == 474 else 79)
        pp.append(a); tg.append(b)
    f = lambda v: f"{statistics.median(v):6.1f} ({min(v):.1f}-{max(v):.1f})"
    print(f"llama-cpp-python {llama_cpp.__version__}, prompt {n_prompt} tok: {f(pp)} tok/s   generation: {f(tg)} tok/s")
