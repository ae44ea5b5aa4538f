#!/usr/bin/env python3
"""Checks tune.json and held-out.json in this folder and prints counts per class per half.

Run: python3 tests/data/recall-set/validate.py  (exits non-zero on a hard error)."""
import collections, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ON = ["direct", "paraphrase", "followup", "typo", "life", "coding_personal", "constraint", "when"]
STOP = set("""a about after again all also am an and any anything are as at be been before
best between but by can could did do does doing don't for from get give go going got had has
have he her here him his how i i'm i've if in into is it it's its just know like many me more
most my need now of off ok on one or our out over please remind right say says should so some
still that the their them then there these they this those to too up us use uses used user user's
using want wants was way we well were what what's when when's where where's which while who
who's why will with would you your yours s re ll d t ve m""".split())

def words(s):
    return {w for w in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", s.lower()) if w not in STOP}

def stem(w):
    w = re.sub(r"'s$", "", w)
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w

def content(s):
    return {stem(w) for w in words(s)} - STOP

errors = []
halves = {}
for name in ["tune.json", "held-out.json"]:
    with open(os.path.join(HERE, name)) as f:
        halves[name] = json.load(f)

fact_lists = [h["facts"] for h in halves.values()]
if any(fl != fact_lists[0] for fl in fact_lists):
    errors.append("fact lists differ between the files")
facts = {f["id"]: f for f in fact_lists[0]}
if len(facts) != len(fact_lists[0]):
    errors.append("duplicate fact ids")
texts = [f["text"].lower() for f in fact_lists[0]]
if len(set(texts)) != len(texts):
    errors.append("duplicate fact texts")
kinds = collections.Counter(f["kind"] for f in fact_lists[0])
for f in fact_lists[0]:
    if f["kind"] not in ("semantic", "episodic"):
        errors.append(f"bad kind {f}")
    if len(f["text"]) > 200:
        errors.append(f"fact over 200 chars: {f['id']}")
style = collections.Counter(
    "user" if f["text"].startswith("User") else
    "first" if re.match(r"(I|I'm|I've|I'd|My|We|Our)\b", f["text"]) else "other"
    for f in fact_lists[0] if f["kind"] == "semantic")
print(f"facts: {len(facts)} {dict(kinds)}; semantic style {dict(style)}; longest {max(map(len, texts))} chars")
if len(facts) < 150:
    errors.append("fewer than 150 facts")

all_vocab = set().union(*(content(f["text"]) for f in fact_lists[0]))
seen_q = {}
used = {}
for name, h in halves.items():
    for k in ("about", "facts", "queries"):
        if k not in h:
            errors.append(f"{name}: missing {k}")
    cls = collections.Counter()
    n_expect = collections.Counter()
    shared_off = 0
    used[name] = collections.Counter()
    for q in h["queries"]:
        c, text, exp = q["class"], q["q"], q["expect"]
        cls[c] += 1
        key = text.strip().lower()
        if key in seen_q:
            errors.append(f"query in {seen_q[key]} and {name}: {text!r}")
        seen_q[key] = name
        if c not in ON + ["off_topic"]:
            errors.append(f"{name}: unknown class {c}")
        if (c == "off_topic") != (exp == []):
            errors.append(f"{name}: class/expect mismatch: {text!r}")
        if len(set(exp)) != len(exp):
            errors.append(f"{name}: repeated expect id: {text!r}")
        for e in exp:
            if e not in facts:
                errors.append(f"{name}: unknown id {e} in {text!r}")
            used[name][e] += 1
        n_expect[len(exp)] += 1
        qw = content(text)
        fw = set().union(*(content(facts[e]["text"]) for e in exp if e in facts)) if exp else set()
        if c == "direct" and not qw & fw:
            print(f"  warn {name}: direct shares no word with its facts: {text!r}")
        if c == "paraphrase" and qw & fw:
            print(f"  warn {name}: paraphrase shares {sorted(qw & fw)}: {text!r}")
        if c == "off_topic" and qw & all_vocab:
            shared_off += 1
    on = sum(cls[c] for c in ON)
    off = cls["off_topic"]
    print(f"{name}: {on} on-topic + {off} off-topic = {on + off} queries")
    print("   " + ", ".join(f"{c} {cls[c]}" for c in ON + ["off_topic"]))
    print(f"   off-topic sharing a non-stopword with some fact: {shared_off}/{off}")
    print(f"   expect sizes: {dict(sorted(n_expect.items()))}")
    sem = sum(v for k, v in used[name].items() if facts[k]["kind"] == "semantic")
    epi = sum(v for k, v in used[name].items() if facts[k]["kind"] == "episodic")
    print(f"   distinct facts expected: {len(used[name])} (expect slots: semantic {sem}, episodic {epi})")
    if on < 75 or off < 50:
        errors.append(f"{name}: counts below 75 on-topic / 50 off-topic")
    if shared_off * 2 < off:
        errors.append(f"{name}: under half the off-topic queries share a fact word")

both = set(used["tune.json"]) | set(used["held-out.json"])
print(f"facts expected by some query: {len(both)}/{len(facts)}; in both halves: "
      f"{len(set(used['tune.json']) & set(used['held-out.json']))}")
print("never expected:", " ".join(sorted(set(facts) - both)))
if errors:
    print("ERRORS:")
    for e in errors:
        print("  " + e)
    sys.exit(1)
print("OK")
