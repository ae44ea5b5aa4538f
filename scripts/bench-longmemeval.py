#!/usr/bin/env python3
"""LongMemEval benchmark: plays LongMemEval records (tests/data/longmemeval, MIT) through a `localm`
binary, each record as one user in its OWN fresh data dir, and asks whether the answer to the
user's later question is in what localm kept (the store) and in what it would inject for the
question (recall), beside a ceiling: a store holding exactly the user's own turns that LongMemEval
marks as holding the answer (`has_answer`).

How a record is played: a temp data dir gets `plugin install memory`, mode log, and settings.json
`llm_model` = --model and `embedding_model` = --embed as absolute paths (as bench-persona does).
Its sessions are played in the order of `haystack_dates`, one at a time: the session becomes
sessions/<haystack_session_id>.jsonl, one line a turn with the given role, ts the session's date
plus one minute a turn (UTC), mtime a minute after its last turn (so the pass finds it quiet and
summarises it); then `localm memory consolidate --json` runs until a pass reads no session (at
most --max-passes a session), as the daemon's passes would over time. After the last session:
`memory list --json` (the store) and `memory recall QUESTION --json` (recall for the question).

Rules:
 content words  bench-persona's `cw` (tests/data/consolidation-set/validate.py content words minus
            'user' and a few contractions); the same-word rule is bench-persona's `same_word`
            (equal, a trailing 's', or a long shared prefix).
 found      the answer is found in a text when at least half of the answer's content words (and at
            least one) occur among the text's content words (bench-persona's `matches_line`).
 in store   the answer is found in the texts of all live records joined (facts and summaries).
 in recall  the answer is found in the texts of the recalled items joined.
 ceiling    the answer is found in the record's `has_answer` user turns joined.
 facts      semantic synth records at the end; summaries: episodic records.
 pass time  wall seconds of each consolidate command that read a session (median, p10-p90).

Updates: a record with an `old_answer` (the value the answer replaced; `--old FILE` gives them
by question_id, as tests/data/updates/longmemeval-old.json does for LongMemEval's knowledge
updates) is also scored for the old value: `old in recall` when it is found in what recall
injects, and `beside` when the old value and the answer are both recalled, the stale value
beside its replacement (tests/data/updates/cases.jsonl: written sessions in English, Spanish
and French, `--types update,negation`).

Several sessions: a record whose answer lies in two or more sessions (`answer_session_ids`) is
also scored by the facts it needs. For each answer session, `needed in recall` when recall holds
a record read (its provenance's evidence) from one of the session's user turns LongMemEval marks
`has_answer`, sharing a content word with the question or its answer; `any turn` the same from
any turn of the session. Reported per record (all sessions so recalled) and per session.

The clock: with --clock, each pass runs at its session's time (an hour after its last turn) and
the store and recall are asked at the question's date (`question_date`), through libfaketime
(Debian's `faketime`: `apt-get install faketime`), so what bounds itself in time ("on Monday",
an intention held for a while) ends as it would have for that user. Without it, every pass runs
now, years after the sessions' dates, and anything with an end has ended.

Kept stores: `--reuse DIR` keeps each record's data dir in DIR; run again, a record whose dir is
there is not replayed, only asked again by --bin: recall by two binaries over one store.

Figures are by question type and over all records. Exit status 0, or 2 when the harness fails.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "tests", "data", "longmemeval", "tune.jsonl")
TYPES = ["single-session-user", "knowledge-update", "multi-session"]

sys.dont_write_bytecode = True
_spec = importlib.util.spec_from_file_location("bench_persona", os.path.join(HERE, "bench-persona.py"))
bp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bp)
bq = bp.bq
HarnessError, run, pct, quantile = bq.HarnessError, bq.run, bq.pct, bq.quantile


def found(answer, text):
    return bp.matches_line(bp.cw(text), bp.cw(str(answer)))


def load(path, types, per_type):
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    out = []
    for t in types:
        rs = [r for r in recs if r["question_type"] == t]
        out += rs[:per_type] if per_type else rs
    return out


def when(date):
    """LongMemEval's '2023/05/27 (Sat) 04:34' as UTC."""
    day, _, hm = date.partition(" (")
    hm = hm.split(") ", 1)[1] if ") " in hm else "00:00"
    return datetime.strptime(f"{day} {hm}", "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def session_name(sid):
    """A LongMemEval session id as a session log's name."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in sid)


FAKETIME_LIBS = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/faketime/libfaketime.so.1"]


def at(env, a, moment):
    """`env` with the clock at `moment` (a UTC datetime) under --clock, else `env` itself."""
    if not a.clock:
        return env
    return {**env, "LD_PRELOAD": a.clock, "FAKETIME": "@" + moment.strftime("%Y-%m-%d %H:%M:%S"),
            "TZ": "UTC", "FAKETIME_DONT_RESET": "1"}


def play_record(r, a, parent, log):
    data = os.path.join(parent, r["question_id"])
    if a.reuse and os.path.isdir(data):
        # A kept store is asked again: recall alone, as the binary under test reads it.
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALM_") and k != "RUST_LOG"}
        env.update(LOCALM_DATA_DIR=data, LOCALM_MODE="log")
        return ask(r, a, at(env, a, when(r["question_date"])), data, [])
    os.makedirs(data)
    env = bp.setup_linked(a.bin, data, a.model, a.embed)
    sdir = os.path.join(data, "sessions")
    os.makedirs(sdir, exist_ok=True)
    order = sorted(range(len(r["haystack_sessions"])), key=lambda i: when(r["haystack_dates"][i]))
    passes = []
    for i in order:
        start = when(r["haystack_dates"][i])
        sid = session_name(r["haystack_session_ids"][i])
        lines = []
        for k, turn in enumerate(r["haystack_sessions"][i]):
            ts = (start + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append(json.dumps({"ts": ts, "role": turn["role"], "content": turn["content"]}, ensure_ascii=False))
        dst = os.path.join(sdir, sid + ".jsonl")
        with open(dst, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        mt = min((start + timedelta(minutes=len(lines))).timestamp(), time.time() - 1200)
        os.utime(dst, (mt, mt))
        then = at(env, a, start + timedelta(minutes=len(lines) + 60))
        for _ in range(a.max_passes):
            p, wall = run(a.bin, ["memory", "consolidate", "--json"], then, a.pass_timeout)
            try:
                rep = json.loads(p.stdout)
            except json.JSONDecodeError:
                rep = {"status": "error", "reason": (p.stderr.strip() or p.stdout.strip())[:300]}
            read = rep.get("sessions_read", 0)
            if read:
                passes.append({"wall_s": wall, "exit": p.returncode, "report": rep})
            if p.returncode != 0 or rep.get("status") != "ok" or not read:
                break
    return ask(r, a, at(env, a, when(r["question_date"])), data, passes)


def ask(r, a, env, data, passes):
    lp, _ = run(a.bin, ["memory", "list", "--json"], env, 120)
    if lp.returncode != 0:
        raise HarnessError(f"`localm memory list --json` failed: {lp.stderr.strip()[:300]}")
    records = json.loads(lp.stdout)["records"]
    rp, _ = run(a.bin, ["memory", "recall", r["question"], "--json"], env, 300)
    try:
        recalled = json.loads(rp.stdout).get("items") or []
    except json.JSONDecodeError:
        raise HarnessError(f"`localm memory recall` failed: {rp.stderr.strip()[:300]}")
    if a.keep_dir:
        if passes or not os.path.exists(os.path.join(data, "passes.json")):
            with open(os.path.join(data, "passes.json"), "w", encoding="utf-8") as f:
                json.dump(passes, f, indent=1)
    else:
        shutil.rmtree(data, ignore_errors=True)
    return {"passes": passes, "records": records, "recalled": recalled}


def needed(r):
    """The answer's sessions (by session log name), each with the lines of the user turns
    LongMemEval marks as holding the answer."""
    out = {}
    for sid, s in zip(r["haystack_session_ids"], r["haystack_sessions"]):
        lines = {k + 1 for k, t in enumerate(s) if t["role"] == "user" and t.get("has_answer")}
        if sid in (r.get("answer_session_ids") or []) and lines:
            out[session_name(sid)] = lines
    return out


def covered(records, need, asked, marked=True):
    """The answer's sessions of which some record in `records` was read from a marked turn (or,
    with `marked` false, from any turn of the session) and shares a content word with `asked`
    (the question and its answer): "User got back from a camping trip to Big Sur" for "how many
    days did I spend on camping trips", not "User is looking for new hiking boots"."""
    words = bp.cw(asked)
    return {sid for sid, lines in need.items()
            if any(e["session"] == sid and (e["line"] in lines or not marked)
                   and any(bp.has_word(w, words) for w in bp.cw(x["text"]))
                   for x in records for e in (x.get("provenance") or {}).get("evidence") or [])}


def score(r, played):
    ceiling_text = "\n".join(t["content"] for s in r["haystack_sessions"] for t in s
                             if t["role"] == "user" and t.get("has_answer"))
    store_text = "\n".join(x["text"] for x in played["records"])
    recall_text = "\n".join(x["text"] for x in played["recalled"])
    facts = [x["text"] for x in played["records"] if x["kind"] == "semantic" and x["source"] == "synth"]
    summaries = [x["text"] for x in played["records"] if x["kind"] == "episodic"]
    old = r.get("old_answer")
    olds = {} if old is None else {
        "old_in_store": found(old, store_text), "old_in_recall": found(old, recall_text),
        "beside": found(old, recall_text) and found(r["answer"], recall_text)}
    need = needed(r)
    asked = f"{r['question']} {r['answer']}"
    by_id = {x["id"]: x for x in played["records"]}
    recalled = [by_id[x["id"]] for x in played["recalled"] if x["id"] in by_id]
    sessions = {} if len(need) < 2 else {
        "needed": len(need), "needed_in_store": len(covered(played["records"], need, asked)),
        "needed_in_recall": len(covered(recalled, need, asked)),
        "session_in_recall": len(covered(recalled, need, asked, marked=False))}
    return {**olds, **sessions, "id": r["question_id"], "type": r["question_type"], "question": r["question"],
            "answer": str(r["answer"]), "ceiling": found(r["answer"], ceiling_text),
            "in_store": found(r["answer"], store_text), "in_recall": found(r["answer"], recall_text),
            "facts": facts, "summaries": summaries, "recalled": [x["text"] for x in played["recalled"]],
            "sessions": len(r["haystack_sessions"]),
            "failed_passes": sum(p["exit"] != 0 or p["report"].get("status") != "ok" for p in played["passes"]),
            "walls": [p["wall_s"] for p in played["passes"]],
            "tokens": [((p["report"].get("model") or {}).get("prompt_tokens"),
                        (p["report"].get("model") or {}).get("gen_tokens")) for p in played["passes"]],
            "skipped": [s for p in played["passes"] for s in (p["report"].get("skipped") or [])]}


def figures(rows):
    n = len(rows)
    walls = [w for x in rows for w in x["walls"]]
    updates = [x for x in rows if "beside" in x]
    olds = {} if not updates else {
        "updates": len(updates),
        "old_in_recall": sum(x["old_in_recall"] for x in updates),
        "beside": sum(x["beside"] for x in updates)}
    multi = [x for x in rows if "needed" in x]
    if multi:
        olds.update({
            "multi": len(multi),
            "all_needed_in_store": sum(x["needed_in_store"] == x["needed"] for x in multi),
            "all_needed_in_recall": sum(x["needed_in_recall"] == x["needed"] for x in multi),
            "sessions_needed": sum(x["needed"] for x in multi),
            "sessions_in_store": sum(x["needed_in_store"] for x in multi),
            "sessions_in_recall": sum(x["needed_in_recall"] for x in multi),
            "any_turn_in_recall": sum(x["session_in_recall"] for x in multi),
            "all_any_turn_in_recall": sum(x["session_in_recall"] == x["needed"] for x in multi)})
    return {**olds, "records": n, "ceiling": pct(sum(x["ceiling"] for x in rows), n),
            "in_store": pct(sum(x["in_store"] for x in rows), n),
            "in_recall": pct(sum(x["in_recall"] for x in rows), n),
            "facts_per_record": statistics.mean([len(x["facts"]) for x in rows]) if rows else None,
            "summaries_per_session": (sum(len(x["summaries"]) for x in rows) / max(1, sum(x["sessions"] for x in rows))),
            "failed_passes": sum(x["failed_passes"] for x in rows),
            "passes": len(walls),
            "pass_s": {"median": statistics.median(walls) if walls else None,
                       "p10": quantile(walls, 0.1), "p90": quantile(walls, 0.9)}}


def show(by_type, total):
    f = lambda x: "  n/a" if x is None else f"{100 * x:5.1f}%"
    print(f"{'type':22} {'n':>3}  {'in store':>8}  {'in recall':>9}  {'ceiling':>8}  facts/rec  passes  pass s median (p10-p90)")
    for t, s in list(by_type.items()) + [("all", total)]:
        ps = s["pass_s"]
        med = "n/a" if ps["median"] is None else f"{ps['median']:.1f} ({ps['p10']:.1f}-{ps['p90']:.1f})"
        print(f"{t:22} {s['records']:3}  {f(s['in_store']):>8}  {f(s['in_recall']):>9}  {f(s['ceiling']):>8}  "
              f"{s['facts_per_record']:9.1f}  {s['passes']:6}  {med}")
    print(f"summaries per session: {total['summaries_per_session']:.2f}; failed passes: {total['failed_passes']}")
    if "multi" in total:
        for t, s in list(by_type.items()) + [("all", total)]:
            if "multi" in s:
                print(f"{t}: of {s['multi']} answers drawn from several sessions, every session's fact "
                      f"in store {s['all_needed_in_store']}, in recall {s['all_needed_in_recall']}; "
                      f"of their {s['sessions_needed']} sessions, a fact from the answer's turn in store "
                      f"{s['sessions_in_store']}, in recall {s['sessions_in_recall']}; a fact of the answer's "
                      f"words from any turn of the session in recall {s['any_turn_in_recall']} "
                      f"(every session: {s['all_any_turn_in_recall']} answers)")
    if "updates" in total:
        for t, s in list(by_type.items()) + [("all", total)]:
            if "updates" in s:
                print(f"{t}: of {s['updates']} updates, the old value recalled in {s['old_in_recall']}, "
                      f"beside the new one in {s['beside']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the localm binary to measure")
    ap.add_argument("--data", default=DATA, help="LongMemEval JSONL to play (default: the repo's tuning slice)")
    ap.add_argument("--model", default=os.environ.get("LOCALM_TEST_LLM_MODEL") or os.path.join(ROOT, "test-models", "SmolLM2-135M-Instruct.Q4_1.gguf"))
    ap.add_argument("--embed", default=os.environ.get("LOCALM_TEST_EMBED_MODEL") or os.path.join(ROOT, "test-models", "all-MiniLM-L6-v2"))
    ap.add_argument("--types", default=",".join(TYPES), help="question types to play, comma-separated")
    ap.add_argument("--old", metavar="FILE", help="old values by question_id (JSON), for records without `old_answer`")
    ap.add_argument("--per-type", type=int, default=0, metavar="N", help="only the first N records of each type")
    ap.add_argument("--max-passes", type=int, default=8, help="passes per session at most (default 8)")
    ap.add_argument("--pass-timeout", type=float, default=900)
    ap.add_argument("--misses", action="store_true", help="print each record: question, answer, what was kept")
    ap.add_argument("--aggregate-only", action="store_true", help="print no record's details (a held-out set)")
    ap.add_argument("--json", metavar="OUT", help="write figures (and, unless --aggregate-only, rows) as JSON")
    ap.add_argument("--keep-dir", action="store_true",
                    help="keep each record's data dir, with its passes' reports in passes.json")
    ap.add_argument("--reuse", metavar="DIR",
                    help="keep the records' data dirs in DIR; a record whose dir is there already "
                         "is only asked again (recall by --bin over the store kept), not replayed")
    ap.add_argument("--clock", action="store_true",
                    help="play each pass at its session's time and ask at the question's (libfaketime)")
    a = ap.parse_args()
    if not a.bin:
        ap.error("--bin is required")
    if a.clock:
        a.clock = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)
        if not a.clock:
            ap.error("--clock needs libfaketime: apt-get install faketime")
    a.bin = os.path.abspath(a.bin)
    for p in (a.model, a.embed):
        if not os.path.exists(p):
            ap.error(f"{p}: not found (scripts/fetch-test-models fetches the test models)")
    recs = load(a.data, a.types.split(","), a.per_type)
    if a.old:
        with open(a.old, encoding="utf-8") as f:
            old = json.load(f)
        recs = [r for r in recs if r["question_id"] in old or "old_answer" in r]
        for r in recs:
            r.setdefault("old_answer", old.get(r["question_id"]))
    if not recs:
        ap.error(f"no records of types {a.types} in {a.data}")
    if a.reuse:
        a.keep_dir = True
        os.makedirs(a.reuse, exist_ok=True)
    parent = a.reuse or tempfile.mkdtemp(prefix="localm-lme-")
    log = lambda m: print(m, file=sys.stderr, flush=True)
    rows = []
    try:
        for k, r in enumerate(recs):
            played = play_record(r, a, parent, log)
            row = score(r, played)
            rows.append(row)
            med = statistics.median(row["walls"]) if row["walls"] else 0
            # A held-out set's progress says nothing of any record's outcome.
            outcome = "" if a.aggregate_only else (
                f" store {int(row['in_store'])} recall {int(row['in_recall'])} ceiling {int(row['ceiling'])}")
            log(f"  {k + 1:3}/{len(recs)} {r['question_type']:20} passes {len(row['walls'])} "
                f"(median {med:.1f} s) facts {len(row['facts'])}{outcome}")
    except HarnessError as e:
        print(f"bench-longmemeval: {e}", file=sys.stderr)
        return 2
    finally:
        if not a.keep_dir:
            shutil.rmtree(parent, ignore_errors=True)
    by_type = {t: figures([x for x in rows if x["type"] == t]) for t in dict.fromkeys(x["type"] for x in rows)}
    total = figures(rows)
    print(f"LongMemEval ({os.path.relpath(a.data, ROOT) if a.data.startswith(ROOT) else a.data}), "
          f"{len(rows)} records, {os.path.basename(a.bin)}")
    show(by_type, total)
    if a.misses and not a.aggregate_only:
        for x in rows:
            print(f"\n[{x['type']}] {x['id']}: {x['question']}  -> {x['answer']}")
            print(f"  store {int(x['in_store'])} recall {int(x['in_recall'])} ceiling {int(x['ceiling'])}"
                  + (f" old in recall {int(x['old_in_recall'])} beside {int(x['beside'])}" if "beside" in x else "")
                  + (f" sessions {x['needed']} in store {x['needed_in_store']} in recall {x['needed_in_recall']}"
                     f" (any turn {x['session_in_recall']})"
                     if "needed" in x else ""))
            for t in x["facts"]:
                print(f"  fact: {t}")
            for t in x["summaries"]:
                print(f"  summary: {t}")
            for t in x["recalled"]:
                print(f"  recalled: {t}")
    if a.json:
        out = {"bin": a.bin, "data": a.data, "by_type": by_type, "all": total}
        if not a.aggregate_only:
            out["rows"] = rows
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
