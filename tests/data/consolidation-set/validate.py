#!/usr/bin/env python3
"""Checks the consolidation evaluation set: session logs parse, roles and timestamps are sane,
labels cover exactly the sessions, every label matches its own fact text, and no keep label of a
half is caught by a forbid label of that half (apart from facts a later session corrects).
Usage: python3 validate.py   (exit status 1 on errors)"""
import json
import os
import re
import sys
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
HALVES = ["tune", "held-out"]
SESSION_CHARS = 8000  # core/src/consolidate/prompt.rs: characters of session text one pass reads

# core/src/recall/lexical.rs STOP_WORDS, for the "fewer than 3 content words -> no summary" rule
STOP = set("""a about above after again all also am an and any are as at be been before being but by can could
did do does doing don't for from had has have having he her here him his how i i'm if in into is it it's its just
let me mine more most my myself no not now of on once only or other our out over please same she should so some
such tell than that the their them then there these they this those through to too under until up us very was we
were what what's when where which while who whom why will with would yes you your yours know remember think thing
things really well get got okay ok hi hello thanks thank user way lot today one make go going say said see""".split())

errors, warnings = [], []


def err(msg):
    errors.append(msg)


def content_words(text):
    out = set()
    for raw in re.split(r"[^\w'+#]", text):
        w = raw.strip("'").lower()
        if not w or (len(w) < 2 and not w.isdigit()) or w in STOP:
            continue
        out.add(w[:-2] if w.endswith("'s") else w)
    return out


def matches(text, groups):
    t = text.lower()
    return all(any(p.lower() in t for p in g) for g in groups)


def forbid_hits(text, f):
    return matches(text, f["match"]) and not any(u.lower() in text.lower() for u in f.get("unless", []))


def check_groups(where, groups):
    if not isinstance(groups, list) or not 1 <= len(groups) <= 3:
        err(f"{where}: match must have 1-3 groups")
        return
    for g in groups:
        if not isinstance(g, list) or not g or not all(isinstance(p, str) and p.strip() for p in g):
            err(f"{where}: bad match group {g!r}")


def check_half(half):
    d = os.path.join(HERE, half)
    files = sorted(f for f in os.listdir(d) if f.endswith(".jsonl"))
    ids = [f[:-6] for f in files]
    last_ts = None
    stats = {"sessions": len(files), "messages": 0, "tool_lines": 0, "chars": []}
    user_words = {}
    for f in files:
        sid = f[:-6]
        lines = open(os.path.join(d, f), encoding="utf-8").read().splitlines()
        msgs = []
        for n, raw in enumerate(lines, 1):
            try:
                o = json.loads(raw)
            except json.JSONDecodeError as e:
                err(f"{half}/{f}:{n}: bad JSON ({e})")
                continue
            extra = set(o) - {"ts", "role", "content", "origin"}
            if extra:
                err(f"{half}/{f}:{n}: unexpected keys {extra}")
            if o.get("role") not in ("user", "assistant"):
                err(f"{half}/{f}:{n}: bad role {o.get('role')!r}")
            if not isinstance(o.get("content"), str) or not o["content"].strip():
                err(f"{half}/{f}:{n}: empty content")
            if "origin" in o and (o["origin"] != "tool" or o["role"] != "user"):
                err(f"{half}/{f}:{n}: origin must be 'tool' on a user line")
            try:
                ts = datetime.strptime(o["ts"], "%Y-%m-%dT%H:%M:%SZ")
            except (KeyError, ValueError):
                err(f"{half}/{f}:{n}: bad ts {o.get('ts')!r}")
                continue
            if last_ts and ts <= last_ts:
                err(f"{half}/{f}:{n}: ts {o['ts']} not after the previous message of the half")
            last_ts = ts
            msgs.append(o)
        if not 4 <= len(msgs) <= 16:
            err(f"{half}/{f}: {len(msgs)} messages (want 4-16)")
        typed = [m for m in msgs if "origin" not in m]
        for i, m in enumerate(typed):
            want = "user" if i % 2 == 0 else "assistant"
            if m["role"] != want:
                err(f"{half}/{f}: message {i + 1} (not counting tool lines) is {m['role']}, want {want}")
                break
        for i, m in enumerate(msgs):
            if "origin" in m and (i == 0 or msgs[i - 1]["role"] != "user"):
                err(f"{half}/{f}: tool line {i + 1} does not follow a user message")
        stats["messages"] += len(msgs)
        stats["tool_lines"] += sum("origin" in m for m in msgs)
        chars = sum(len(m["content"]) for m in msgs)
        rendered = sum(len(m["role"]) + 2 + len(m["content"]) + 1 for m in msgs if "origin" not in m)
        stats["chars"].append((sid, chars, rendered))
        if rendered > SESSION_CHARS:
            warnings.append(f"{half}/{f}: rendered log {rendered} chars > {SESSION_CHARS}: oldest lines would be cut")
        user_words[sid] = content_words(" ".join(m["content"] for m in msgs if m["role"] == "user" and "origin" not in m))

    labels = json.load(open(os.path.join(d, "labels.json"), encoding="utf-8"))
    if not isinstance(labels.get("about"), str) or "EVERY" not in labels["about"]:
        err(f"{half}/labels.json: 'about' must describe the matching rule")
    sess = labels.get("sessions", {})
    for sid in ids:
        if sid not in sess:
            err(f"{half}: session {sid} has no labels")
    for sid in sess:
        if sid not in ids:
            err(f"{half}: labels for missing session {sid}")
    n_keep = n_forbid = n_null = 0
    all_forbid = []
    for sid in ids:
        lab = sess.get(sid)
        if lab is None:
            continue
        if set(lab) != {"keep", "forbid", "summary"}:
            err(f"{half}/{sid}: label keys {sorted(lab)}")
        for k in lab.get("keep", []):
            n_keep += 1
            check_groups(f"{half}/{sid} keep '{k['fact']}'", k["match"])
            if not matches(k["fact"], k["match"]):
                err(f"{half}/{sid}: keep '{k['fact']}' does not match its own match lists")
            sb = k.get("superseded_by")
            if sb and (sb not in ids or sb <= sid):
                err(f"{half}/{sid}: superseded_by {sb!r} is not a later session")
        for fb in lab.get("forbid", []):
            n_forbid += 1
            check_groups(f"{half}/{sid} forbid '{fb['fact']}'", fb["match"])
            if not fb.get("why"):
                err(f"{half}/{sid}: forbid '{fb['fact']}' has no why")
            if not forbid_hits(fb["fact"], fb):
                err(f"{half}/{sid}: forbid '{fb['fact']}' is not caught by its own match/unless")
            all_forbid.append((sid, fb))
        s = lab.get("summary")
        few = len(user_words[sid]) < 3
        if s is None:
            n_null += 1
            if not few:
                err(f"{half}/{sid}: summary null but the user typed {len(user_words[sid])} content words")
        else:
            check_groups(f"{half}/{sid} summary", s["match"])
            if not matches(s["good"], s["match"]):
                err(f"{half}/{sid}: summary '{s['good']}' does not match its own match lists")
            if len(s["good"].split()) > 15:
                err(f"{half}/{sid}: summary longer than 15 words")
            if few:
                err(f"{half}/{sid}: summary given but the user typed < 3 content words")
    # grounding (notes only): a keep label's words should occur in what the user typed; a forbid label's words somewhere in the session
    for sid in ids:
        msgs = [json.loads(l) for l in open(os.path.join(d, sid + ".jsonl"), encoding="utf-8")]
        typed = " ".join(m["content"] for m in msgs if m["role"] == "user" and "origin" not in m)
        everything = " ".join(m["content"] for m in msgs)
        for k in sess.get(sid, {}).get("keep", []):
            if not matches(typed, k["match"]):
                warnings.append(f"{half}/{sid}: keep '{k['fact']}': some match group has no word in the user's typed text (check by hand)")
        for fb in sess.get(sid, {}).get("forbid", []):
            if not matches(everything, fb["match"]):
                warnings.append(f"{half}/{sid}: forbid '{fb['fact']}': an inferred wrong fact, its words are not in the session (check by hand)")
    # no keep fact of the half may be caught by a forbid of the half (except the correction it is superseded by)
    for sid in ids:
        for k in sess.get(sid, {}).get("keep", []):
            for fsid, fb in all_forbid:
                if forbid_hits(k["fact"], fb):
                    if k.get("superseded_by") == fsid:
                        continue
                    err(f"{half}: keep '{k['fact']}' ({sid}) is caught by forbid '{fb['fact']}' ({fsid})")
    stats.update(keep=n_keep, forbid=n_forbid, null_summaries=n_null)
    return stats


def main():
    for half in HALVES:
        s = check_half(half)
        chars = sorted(c for _, c, _ in s["chars"])
        print(f"{half}: {s['sessions']} sessions, {s['messages']} messages ({s['tool_lines']} tool-origin), "
              f"{s['keep']} keep, {s['forbid']} forbid, {s['null_summaries']} null summaries; "
              f"chat chars min {chars[0]} median {chars[len(chars) // 2]} max {chars[-1]}")
        for sid, c, r in s["chars"]:
            if c > 4000:
                print(f"  long: {sid}: {c} chars of chat, {r} as rendered for the model (tool lines left out)")
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
