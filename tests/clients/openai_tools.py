"""The official `openai` client runs a tool round-trip through localm's relay (tests/tests/relay.rs,
scripts/try-upstream-tools): a request with `tools`, the upstream's `tool_calls` reply, the
client's `tool` message sent back, and the final answer.

Env: LOCALM_BASE_URL (http://127.0.0.1:PORT/v1), LOCALM_TOKEN, LOCALM_SENT (a file: each
request's `messages` and `tools` as this client sent them, one JSON line each),
LOCALM_MODEL (optional: else the first of /v1/models). Prints "ok: ..." lines; exits non-zero
on the first failure."""
import json
import os

import openai

sent_file = os.environ["LOCALM_SENT"]


def record(messages, tools):
    """What this client sends: the client serialises these objects as they are."""
    with open(sent_file, "a") as f:
        f.write(json.dumps({"messages": messages, "tools": tools}) + "\n")


client = openai.OpenAI(base_url=os.environ["LOCALM_BASE_URL"], api_key=os.environ["LOCALM_TOKEN"])
model = os.environ.get("LOCALM_MODEL") or client.models.list().data[0].id
print(f"ok: model {model}")
tools = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather now in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}]
messages = [
    {"role": "system", "content": "You can call tools. Call get_weather for weather questions."},
    {"role": "user", "content": "What is the weather like in my home town?"},
]
record(messages, tools)
first = client.chat.completions.with_raw_response.create(
    model=model, messages=messages, tools=tools, temperature=0,
    tool_choice={"type": "function", "function": {"name": "get_weather"}},
    max_tokens=64, extra_headers={"X-Localm-Session": "tools"})
memory = first.headers.get("x-localm-memory")
first = first.parse()
calls = first.choices[0].message.tool_calls
assert calls, first
assert calls[0].function.name == "get_weather", calls
args = json.loads(calls[0].function.arguments)
print(f"ok: tool call {calls[0].function.name}({args}) ({memory})")

# The assistant's message with its tool calls and its content, "" when it had none:
# llama-cpp-python's server refuses a null content and its chatml-function-calling template
# fails without the key (both valid for OpenAI).
said = first.choices[0].message
messages.append({"role": "assistant", "content": said.content or "",
                 "tool_calls": [c.model_dump(exclude_none=True) for c in said.tool_calls]})
messages.append({"role": "tool", "tool_call_id": calls[0].id,
                 "content": json.dumps({"city": args.get("city"), "celsius": 12})})
record(messages, tools)
stream = client.chat.completions.create(
    model=model, messages=messages, tools=tools, temperature=0, max_tokens=64, stream=True,
    extra_headers={"X-Localm-Session": "tools"})
answer = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
assert answer.strip(), "no final answer"
print(f"ok: final answer {answer!r}")
