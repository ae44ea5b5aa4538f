#!/usr/bin/env python3
"""Why a LongMemEval answer was never a candidate: the disclosure rules' verdict on every clause
of the user's answer-bearing turns, with no model and no pass.

For each record of --data (LongMemEval JSONL; default the repo's tuning slice), each user turn
LongMemEval marks `has_answer` becomes a case of core's expected-outcome file format (the turn,
and the assistant turn before it as the question it may answer). core's `disclosures` test, run
with LOCALM_BLESS=1 and LOCALM_DISCLOSURES=<a temp file>, writes each clause's verdict: "kept: <as
what>" or the name of the rule that dropped it (core/src/consolidate/rules.rs). Nothing in the
repo is written.

Printed: per record (unless --aggregate-only) the question, the answer (marked "[answer lost]"
when the turns hold it and the kept clauses do not) and each clause with its verdict; then, over the records whose ceiling holds (bench-longmemeval's rule: the answer is
found in the answer-bearing turns), how many have the answer in the kept clauses joined: the
most a pass can store when the model rewrites nothing away. Also the count of clauses per rule.

  scripts/explain-longmemeval.py [--data FILE] [--only-dropped] [--aggregate-only]
"""
import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("bl", os.path.join(ROOT, "scripts", "bench-longmemeval.py"))
bl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bl)


def answer_turns(r):
    for s in r["haystack_sessions"]:
        for k, t in enumerate(s):
            if t["role"] == "user" and t.get("has_answer"):
                case = {"user": t["content"], "expect": []}
                if k and s[k - 1]["role"] == "assistant":
                    case["assistant"] = s[k - 1]["content"]
                yield case


def verdicts(cases):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(c) + "\n" for c in cases)
        env = dict(os.environ, LOCALM_BLESS="1", LOCALM_DISCLOSURES=path)
        p = subprocess.run(["cargo", "test", "-q", "-p", "localm-core", "--test", "disclosures"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"error: core's disclosures test failed: {p.stderr.strip()[-500:]}")
        with open(path, encoding="utf-8") as f:
            return [json.loads(line)["expect"] for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=bl.DATA, help="LongMemEval JSONL (default: the repo's tuning slice)")
    ap.add_argument("--only-dropped", action="store_true", help="print dropped clauses only")
    ap.add_argument("--aggregate-only", action="store_true", help="print no record (a held-out set)")
    a = ap.parse_args()
    with open(a.data, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    per = [list(answer_turns(r)) for r in recs]
    got = iter(verdicts([c for cs in per for c in cs]))
    rules = collections.Counter()
    reachable = ceiling = 0
    by_type = collections.defaultdict(lambda: [0, 0])
    for r, cs in zip(recs, per):
        vs = [next(got) for _ in cs]
        kept = "\n".join(v[len("kept: "):] for turn in vs for _, v in turn if v.startswith("kept: "))
        whole = "\n".join(c["user"] for c in cs)
        has = bl.found(r["answer"], whole)
        reach = has and bl.found(r["answer"], kept)
        ceiling += has
        reachable += reach
        by_type[r["question_type"]][0] += has
        by_type[r["question_type"]][1] += reach
        for turn in vs:
            rules.update("kept" if v.startswith("kept: ") else v for _, v in turn)
        if a.aggregate_only:
            continue
        lost = " [answer lost]" if has and not bl.found(r["answer"], kept) else ""
        print(f"## {r['question_id']} ({r['question_type']}){lost} {r['question']} => {r['answer']}")
        for turn in vs:
            for clause, v in turn:
                if v.startswith("kept: "):
                    if not a.only_dropped:
                        print(f"   kept  {v[len('kept: '):]}")
                else:
                    print(f"   -     {clause}  [{v}]")
            print("   ·")
    print(f"records {len(recs)}; answer in the answer-bearing turns {ceiling}; "
          f"of those, in the clauses the rules keep {reachable}")
    print("by type (in the turns, in the kept clauses): "
          + ", ".join(f"{t} {h}/{k}" for t, (h, k) in sorted(by_type.items())))
    print("clauses by verdict: " + ", ".join(f"{k} {n}" for k, n in rules.most_common()))


if __name__ == "__main__":
    main()
