#!/usr/bin/env python3
"""Labelled chat turns for the language gate, as `lang<TAB>text` lines on stdout: the user turns
of tests/data/persona-chat/valid.csv and of the first three sessions of each tests/data/longmemeval
record (English), and the persona owners' turns of tests/data/xpersona (six languages).

With --lingua-sentences, instead: the 1,000 test sentences of each of lingua's eight language
models memory reads (en, fr, de, es, it, pt, nl, id; web and news text from the Leipzig corpora,
in the lingua-*-language-model crates that `cargo fetch` brings, lingua being a dev-dependency of
core). With --half tune|held, the first or second half of each language's lines.

  scripts/language-turns.py | cargo run --release -q -p localm-core --example language_of
  scripts/language-turns.py --lingua-sentences | cargo run … --example language_of -- --detector lingua
"""
import argparse
import collections
import csv
import glob
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")


def clean(text):
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


LINGUA = {"english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it",
          "portuguese": "pt", "dutch": "nl", "indonesian": "id"}


def lingua_sentences():
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    for name, code in LINGUA.items():
        found = sorted(glob.glob(os.path.join(
            home, "registry", "src", "*", f"lingua-{name}-language-model-1.3.0", "testdata",
            "sentences.txt")))
        if not found:
            raise SystemExit(f"lingua's {name} model crate is not fetched: run `cargo fetch`")
        with open(found[0], encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield code, clean(line)


def chat_turns():
    for lang in ["fr", "it", "id", "zh", "ja", "ko"]:
        with open(os.path.join(DATA, "xpersona", f"{lang}_valid.json"), encoding="utf-8") as f:
            for d in json.load(f):
                for _, owner in d["dialogue"]:
                    yield lang, clean(owner)
    with open(os.path.join(DATA, "persona-chat", "valid.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for line in row["Best Generated Conversation"].split("\n"):
                if line.startswith("User 1:"):
                    yield "en", clean(line[7:])
    with open(os.path.join(DATA, "longmemeval", "tune.jsonl"), encoding="utf-8") as f:
        for line in f:
            for session in json.loads(line).get("haystack_sessions", [])[:3]:
                for m in session:
                    if m["role"] == "user":
                        yield "en", clean(m["content"])[:400]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lingua-sentences", action="store_true")
    ap.add_argument("--half", choices=["tune", "held"])
    args = ap.parse_args()
    by = collections.defaultdict(list)
    for lang, text in (lingua_sentences() if args.lingua_sentences else chat_turns()):
        by[lang].append(text)
    for lang, texts in by.items():
        half = len(texts) // 2
        if args.half == "tune":
            texts = texts[:half]
        elif args.half == "held":
            texts = texts[half:]
        for text in texts:
            print(f"{lang}\t{text}")


if __name__ == "__main__":
    main()
