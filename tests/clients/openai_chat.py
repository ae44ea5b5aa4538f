"""The official `openai` Python client against localm's chat endpoint (run by tests/tests/chat.rs).

Env: LOCALM_BASE_URL (http://127.0.0.1:PORT/v1), LOCALM_TOKEN (the api-token). Prints one
"ok: ..." line per check and exits non-zero on the first failure."""
import os
import sys

import openai

client = openai.OpenAI(base_url=os.environ["LOCALM_BASE_URL"], api_key=os.environ["LOCALM_TOKEN"])
headers = {"X-Localm-Session": "py"}

models = client.models.list()
model = models.data[0].id
assert model, models

# Non-streaming, with the raw response for the X-Localm-Memory header.
raw = client.chat.completions.with_raw_response.create(
    model=model,
    messages=[{"role": "system", "content": "Answer briefly."},
              {"role": "user", "content": "What is my dog's name?"}],
    max_tokens=16,
    temperature=0,
    extra_headers=headers,
)
memory = raw.headers.get("x-localm-memory")
completion = raw.parse()
text = completion.choices[0].message.content
assert memory and memory.startswith("count=1; items="), memory
assert "Biscuit" in text, text
assert completion.usage.completion_tokens > 0, completion.usage
assert completion.choices[0].finish_reason in ("stop", "length"), completion
print(f"ok: non-streaming ({memory}): {text!r}")

# Streaming, with usage in the last chunk, ending in [DONE] (the client stops there).
with client.chat.completions.with_streaming_response.create(
    model=model,
    messages=[{"role": "user", "content": [{"type": "text", "text": "Tell me about my dog."}]}],
    max_tokens=24,
    stream=True,
    stream_options={"include_usage": True},
    extra_headers=headers,
) as response:
    memory = response.headers.get("x-localm-memory")
    parts, usage, finish = [], None, None
    for chunk in response.parse():
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            if choice.delta.content:
                parts.append(choice.delta.content)
            if choice.finish_reason:
                finish = choice.finish_reason
assert memory and memory.startswith("count="), memory
assert parts, "no content streamed"
assert finish in ("stop", "length"), finish
assert usage is not None and usage.completion_tokens > 0, usage
print(f"ok: streaming ({memory}, {len(parts)} chunks): {''.join(parts)!r}")

# An error in OpenAI's shape reaches the client as an exception with the server's message.
try:
    client.chat.completions.create(model=model, messages=[])
    sys.exit("an empty message list was accepted")
except openai.BadRequestError as e:
    assert "messages is empty" in str(e), e
    print("ok: errors")
