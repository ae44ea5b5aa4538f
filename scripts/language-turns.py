#!/usr/bin/env python3
"""Labelled chat turns for the language gate, as `lang<TAB>text` lines on stdout: the user turns
of tests/data/persona-chat/valid.csv and of the first three sessions of each tests/data/longmemeval
record (English), and the persona owners' turns of tests/data/xpersona (six languages).

  scripts/language-turns.py | cargo run --release -q -p localm-core --example language_of
"""
import csv
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")


def clean(text):
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


def main():
    for lang in ["fr", "it", "id", "zh", "ja", "ko"]:
        with open(os.path.join(DATA, "xpersona", f"{lang}_valid.json"), encoding="utf-8") as f:
            for d in json.load(f):
                for _, owner in d["dialogue"]:
                    print(f"{lang}\t{clean(owner)}")
    with open(os.path.join(DATA, "persona-chat", "valid.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for line in row["Best Generated Conversation"].split("\n"):
                if line.startswith("User 1:"):
                    print(f"en\t{clean(line[7:])}")
    with open(os.path.join(DATA, "longmemeval", "tune.jsonl"), encoding="utf-8") as f:
        for line in f:
            for session in json.loads(line).get("haystack_sessions", [])[:3]:
                for m in session:
                    if m["role"] == "user":
                        print(f"en\t{clean(m['content'])[:400]}")


if __name__ == "__main__":
    main()
