#!/usr/bin/env python3
"""The clause rules' verdicts on every user turn of a corpus nobody here wrote, with no model: to
see what a rule change moves, byte for byte, before any benchmark is run.

The corpus: each user turn (with the assistant turn before it, the question it may answer) of
  - LongMemEval's development half (--dev, the dev.jsonl of the shared data), every record
    outside the two held-out slices (the spent one and the "fresh" one, both built here exactly as
    docs/benchmarks.md builds them; the fresh one holds the 36 records earlier rounds read as
    "tune2", so its one score is a validation figure: no unread record of the three main types is
    left in the development half), and
  - the Synthetic-Persona-Chat `valid` slice in tests/data/persona-chat (User 1 as the user).
The held-out slices' turns are never read here.

core's `disclosures` test, run with LOCALM_BLESS=1 and LOCALM_DISCLOSURES=<the corpus>, writes
each clause's verdict ("kept: <as what>" or the rule that dropped it) and every rule that fired
on it (`fired`, the dropping rule last). --out keeps the result;
--against compares it with an earlier --out and prints every case that moved (exit 1 when any
did). --held-out FILE writes the fresh held-out slice (to score once, in aggregate only).

  scripts/verdicts.py --dev DEV_JSONL [--out FILE] [--against FILE] [--held-out FILE]
"""
import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN = ["single-session-user", "knowledge-update", "multi-session"]


def ids(path):
    with open(path, encoding="utf-8") as f:
        return {json.loads(line)["question_id"] for line in f if line.strip()}


def by_hash(recs, salt):
    return sorted(recs, key=lambda r: hashlib.sha256((salt + r["question_id"]).encode()).hexdigest())


def slices(recs):
    """The spent held-out slice (docs/benchmarks.md, first 15 of each main type outside the tuning
    slice) and the fresh one (every other main-type record outside the tuning slice)."""
    tune = ids(os.path.join(ROOT, "tests/data/longmemeval/tune.jsonl"))
    spent, fresh = [], []
    for t in MAIN:
        rs = [r for r in recs if r["question_type"] == t and r["question_id"] not in tune
              and not r["question_id"].endswith("_abs")]
        rs = by_hash(rs, "localm-lme-")
        spent += rs[:15]
        fresh += rs[15:]
    return tune, spent, by_hash(fresh, "localm-lme-fresh-")


def lme_cases(recs, skip):
    for r in recs:
        if r["question_id"] in skip:
            continue
        for s in r["haystack_sessions"]:
            for k, t in enumerate(s):
                if t["role"] != "user":
                    continue
                case = {"user": t["content"], "expect": [], "source": "longmemeval"}
                if k and s[k - 1]["role"] == "assistant":
                    case["assistant"] = s[k - 1]["content"]
                yield case


def persona_cases():
    path = os.path.join(ROOT, "tests/data/persona-chat/valid.csv")
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            turns = []
            for line in row["Best Generated Conversation"].splitlines():
                head, _, rest = line.partition(":")
                who = head.strip().lower().replace(" ", "")
                if who in ("user1", "user2") and rest:
                    turns.append([who, rest.strip()])
                elif turns and line.strip():
                    turns[-1][1] += "\n" + line.strip()
            for k, (who, text) in enumerate(turns):
                if who != "user1":
                    continue
                case = {"user": text, "expect": [], "source": "persona-valid"}
                if k and turns[k - 1][0] == "user2":
                    case["assistant"] = turns[k - 1][1]
                yield case


def verdicts(cases):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
        env = dict(os.environ, LOCALM_BLESS="1", LOCALM_DISCLOSURES=path)
        p = subprocess.run(["cargo", "test", "-q", "-p", "localm-core", "--test", "disclosures"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"error: core's disclosures test failed: {p.stderr.strip()[-800:]}")
        with open(path, encoding="utf-8") as f:
            got = [json.loads(line) for line in f if line.strip()]
    # Each case as it went in, with the verdicts written back (fields the test does not know of,
    # such as `source`, kept from the input).
    return [dict(c, expect=g["expect"], fired=g.get("fired", [])) for c, g in zip(cases, got)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dev", required=True, help="LongMemEval's development half (dev.jsonl)")
    ap.add_argument("--out", help="write the verdicts here")
    ap.add_argument("--against", help="an earlier --out: print every case that moved")
    ap.add_argument("--held-out", help="write the fresh held-out slice here (score it once)")
    a = ap.parse_args()
    with open(a.dev, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    _, spent, fresh = slices(recs)
    if a.held_out:
        with open(a.held_out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in fresh)
        print(f"fresh held-out slice: {len(fresh)} records -> {a.held_out}")
    skip = {r["question_id"] for r in spent + fresh}
    cases = list(lme_cases(recs, skip)) + list(persona_cases())
    got = verdicts(cases)
    clauses = sum(len(c["expect"]) for c in got)
    print(f"{len(got)} user turns ({sum(c['source'] == 'longmemeval' for c in got)} LongMemEval, "
          f"{sum(c['source'] == 'persona-valid' for c in got)} persona), {clauses} clauses")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(c, ensure_ascii=False) + "\n" for c in got)
    if a.against:
        with open(a.against, encoding="utf-8") as f:
            old = [json.loads(line) for line in f if line.strip()]
        if len(old) != len(got):
            sys.exit(f"error: {a.against} holds {len(old)} turns, this corpus {len(got)}")
        moved = [(o, n) for o, n in zip(old, got) if o["expect"] != n["expect"]]
        for o, n in moved:
            print(f"\n[{n['source']}] {n.get('assistant', '')[-120:]!r}\n  user: {n['user'][:300]!r}")
            for pair in o["expect"]:
                if pair not in n["expect"]:
                    print(f"  - {pair}")
            for pair in n["expect"]:
                if pair not in o["expect"]:
                    print(f"  + {pair}")
        refired = sum(1 for o, n in zip(old, got) if "fired" in o and o["fired"] != n["fired"])
        print(f"\n{len(moved)} of {len(got)} turns moved"
              + (f"; the rules that fired moved on {refired} more" if refired else ""))
        sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
