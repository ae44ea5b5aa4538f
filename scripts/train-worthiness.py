#!/usr/bin/env python3
"""Fact-worthiness head: a logistic regression on the product's MiniLM sentence vectors, trained on
the public persona set's `valid` split (tests/data/persona-chat/valid.csv), measured against the
rules on the hand-labelled stored facts (tests/data/persona-chat/labels/issue-20.jsonl).
Python with numpy (`python3 -m venv V && V/bin/pip install numpy`).

Training data: every valid conversation's self-disclosures as the pass finds them
(`disclose::disclosures`, through `embed_lines --facts`), each as the rule's fact ("User has two
dogs"), the text a stored fact has. A fact is positive when it matches one of User 1's persona lines
under scripts/bench-persona.py's match rule (at least half of the line's content words, same-root),
negative otherwise. Persona lines do not list everything a speaker says, so some true facts are
negatives: the head learns "reads like a persona line", which is what the issue asks a fact to be
(durable, about the user, standing on its own).

Fit: L2-regularised logistic regression, full-batch gradient descent from zero (deterministic);
the L2 strength is picked by 5-fold cross-validated log-loss on the training facts. The threshold
is picked on the valid hand labels: the highest one that drops at most --max-keep-drop of their
`keep` facts. Then precision of the kept labelled facts, and the `keep` facts dropped, are printed
for valid and (aggregate only) test, next to the rules' (everything the labels hold), and the same
at the thresholds that drop 10% and 15% of valid's keep facts (the trade-off).

`scripts/train-worthiness.py [--bin target/release/examples/embed_lines] [--model DIR]
[--out FILE]` writes the weights with --out: a JSON file naming the embedding model id, the
dimension, the bias, the threshold and the weights.
"""
import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True
_spec = importlib.util.spec_from_file_location("bench_persona", os.path.join(HERE, "bench-persona.py"))
bp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bp)

LABELS = os.path.join(ROOT, "tests", "data", "persona-chat", "labels", "issue-20.jsonl")
L2_GRID = [1e-4, 1e-3, 1e-2, 3e-2, 1e-1]
EPOCHS = 2000
RATE = 2.0


def embed_lines(bin_, args, stdin):
    p = subprocess.run([bin_] + args, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{bin_} {' '.join(args)} failed: {p.stderr.strip()[:500]}")
    return p.stdout


def rule_facts(bin_, convs):
    stdin = "".join(json.dumps(c["turns"]) + "\n" for c in convs)
    return [json.loads(l) for l in embed_lines(bin_, ["--facts"], stdin).splitlines() if l.strip()]


def vectors(bin_, model, texts):
    out = embed_lines(bin_, [model], "".join(t.replace("\n", " ") + "\n" for t in texts)).splitlines()
    head = out[0].split()
    if head[:2] != ["#", "model"]:
        sys.exit("embed_lines printed no model header")
    vs = [[float(x) for x in l.split()] for l in out[1:]]
    if len(vs) != len(texts):
        sys.exit(f"{len(vs)} vectors for {len(texts)} texts")
    return head[2], int(head[4]), vs


def score(w, b, x):
    return 1 / (1 + np.exp(-(x @ w + b)))


def fit(xs, ys, l2):
    """Full-batch gradient descent on the class-balanced mean log-loss + l2/2 |w|^2, from zero."""
    n = len(ys)
    pos = ys.sum()
    weight = np.where(ys == 1, n / (2 * max(pos, 1)), n / (2 * max(n - pos, 1)))
    w, b = np.zeros(xs.shape[1]), 0.0
    for _ in range(EPOCHS):
        e = (score(w, b, xs) - ys) * weight
        b -= RATE * e.mean()
        w -= RATE * (xs.T @ e / n + l2 * w)
    return w, b


def log_loss(w, b, xs, ys):
    p = np.clip(score(w, b, xs), 1e-9, 1 - 1e-9)
    return float(-np.mean(np.where(ys == 1, np.log(p), np.log(1 - p))))


def cross_validate(xs, ys, l2, k=5):
    idx = list(range(len(ys)))
    random.Random("worthiness-cv").shuffle(idx)
    total = 0.0
    for f in range(k):
        test = idx[f::k]
        tr = sorted(set(idx) - set(test))
        w, b = fit(xs[tr], ys[tr], l2)
        total += log_loss(w, b, xs[test], ys[test])
    return total / k


def figures(name, items, threshold):
    """items: [(label, p)]. The rules keep all; the head keeps p >= threshold."""
    keep_all = sum(1 for l, _ in items if l == "keep")
    kept = [(l, p) for l, p in items if p >= threshold]
    keep_kept = sum(1 for l, _ in kept if l == "keep")
    print(f"{name}: rules {keep_all}/{len(items)} = {100 * keep_all / len(items):.1f}%; "
          f"rules + head (p >= {threshold:.3f}) {keep_kept}/{len(kept)} = "
          f"{100 * keep_kept / max(len(kept), 1):.1f}%, dropping {keep_all - keep_kept} keep and "
          f"{len(items) - len(kept) - (keep_all - keep_kept)} bad facts")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                                                  "release", "examples", "embed_lines"))
    ap.add_argument("--model", default=os.environ.get("LOCALM_TEST_EMBED_MODEL",
                                                      os.path.join(ROOT, "test-models", "all-MiniLM-L6-v2")))
    ap.add_argument("--max-keep-drop", type=float, default=0.05,
                    help="the threshold drops at most this share of valid's keep facts (default 0.05)")
    ap.add_argument("--out", help="write the weights as JSON here")
    a = ap.parse_args()

    convs = bp.load_split("valid", 0)
    facts = rule_facts(a.bin, convs)
    ys = []
    for f in facts:
        words = bp.cw(f["fact"])
        ys.append(int(any(bp.matches_line(words, l["words"]) for l in convs[f["conversation"]]["p1"])))
    labels = [json.loads(l) for l in open(LABELS, encoding="utf-8") if l.strip()]
    model_id, dim, vs = vectors(a.bin, a.model, [f["fact"] for f in facts] + [l["fact"] for l in labels])
    vs = np.array(vs)
    xs, lx = vs[:len(facts)], vs[len(facts):]
    ys = np.array(ys)
    print(f"training facts: {len(facts)} from {len(convs)} valid conversations, {int(ys.sum())} match a "
          f"User 1 persona line; model {model_id}")

    cv = {l2: cross_validate(xs, ys, l2) for l2 in L2_GRID}
    for l2, loss in cv.items():
        print(f"  l2 {l2:g}: 5-fold log-loss {loss:.4f}")
    l2 = min(cv, key=cv.get)
    w, b = fit(xs, ys, l2)

    ps = score(w, b, lx)
    by_split = {s: [(l["label"], float(p)) for l, p in zip(labels, ps) if l["split"] == s]
                for s in ("valid", "test")}
    for s in ("valid", "test"):
        keep = [p for l, p in by_split[s] if l == "keep"]
        bad = [p for l, p in by_split[s] if l == "bad"]
        auc = sum((k > x) + 0.5 * (k == x) for k in keep for x in bad) / max(len(keep) * len(bad), 1)
        print(f"{s} hand labels: keep vs bad AUC {auc:.3f} ({len(keep)} keep, {len(bad)} bad)")
    valid_keep = sorted(p for l, p in by_split["valid"] if l == "keep")
    allowed = int(a.max_keep_drop * len(valid_keep))
    threshold = valid_keep[allowed] if valid_keep else 0.5
    print(f"l2 {l2:g}; threshold {threshold:.4f} (drops at most {allowed} of {len(valid_keep)} valid keep facts)")
    figures("valid (hand labels)", by_split["valid"], threshold)
    figures("test (hand labels, aggregate)", by_split["test"], threshold)
    for share in (0.10, 0.15):
        t = valid_keep[int(share * len(valid_keep))]
        print(f"trade-off, dropping {share:.0%} of valid's keep facts:")
        figures("  valid", by_split["valid"], t)
        figures("  test", by_split["test"], t)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"about": "fact-worthiness head: logistic regression on sentence vectors; "
                                "scripts/train-worthiness.py",
                       "model": model_id, "dim": dim, "threshold": round(threshold, 6),
                       "bias": round(float(b), 6), "weights": [round(float(x), 6) for x in w]}, f)
            f.write("\n")
        print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
