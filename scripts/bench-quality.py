#!/usr/bin/env python3
"""Consolidation quality: plays the labelled set tests/data/consolidation-set through a `localm`
binary, one `localm memory consolidate` pass per session in chronological order, each half in its
own fresh data dir, and scores what the store holds against the labels (see labels.json 'about').

How a half is played: a temp data dir (LOCALM_DATA_DIR) gets `plugin install memory`, mode log,
`setup-model --from MODEL` and, when given, `setup-embeddings --from EMBED`. Then for each session:
copy its JSONL into sessions/ with its mtime set to its last message's time (and at least 20
minutes in the past, so the pass finds it quiet and summarises it), run `memory consolidate --json`,
then snapshot `memory list --json`. Earlier sessions are watermarked (state.json lines_read), so each
pass reads only the session just copied.

Rules (matching = validate.py: for EVERY group of 'match' some phrase is a case-insensitive substring;
a forbid does not apply when the text contains one of its 'unless' phrases). Content words =
validate.py content_words, minus 'user' (its STOP list has 'user' but not "user's").

 facts      The synth semantic records ever stored, each record id counted once with its last text,
            attributed to the pass that first stored that text (created or last updated it); facts
            a later pass deleted or archived still count.
 forbidden  A fact caught by any forbid label of any session of the half. Exception (as in
            validate.py): a forbid of session F does not apply to a fact stored before F's pass that
            matches a keep label with superseded_by = F (it was right when stored).
 grounded   At least 60% of the fact's content words are the user's: occur in the user-typed lines
            (role user, no origin 'tool') of the session it is attributed to. A fact word counts when
            a user word equals it or both share a prefix of at least max(3, shorter length - 1)
            letters (lives~live, works~worked). A fact with no content words is not grounded.
 precision  Facts that are not forbidden and grounded, over all facts. Also shown: facts matching a
            keep label of their own session.
 coverage   Distinct keep facts (by label text; a fact labelled in several sessions counts once,
            covered if any of its labels is). A keep label is covered when a semantic record of the
            final store matches it; a label with superseded_by is covered when a semantic record
            matched it in any snapshot from its own session's pass on. 'stale' counts superseded
            labels whose superseding session's forbid still catches a record of the final store.
 duplicates Pairs of final-store records (any kind) whose normalised texts (lowercase, only letters
            and digits, single spaces) are equal, or one's content-word set contains the other's
            (both non-empty), or content-word Jaccard >= 0.8. Shown as pairs and as the share of
            records in at least one pair.
 summaries  The episodic records whose provenance names the session (in any snapshot). 'match' =
            share of summaries of sessions with a non-null label that match it; 'sessions' = share
            of sessions with a non-null label that got a matching summary; 'voice' = share of all
            summaries in the user's action voice: no I/I'm/I've/me/my/you/your/we/our/us, not opening
            with an assistant opener (Sure, Certainly, Of course, Here, As an AI, I'm not sure, Hello,
            Hi, Sorry, Great, Let's, The user) and not opening with a pronoun, auxiliary or 'please';
            'null ok' = share of sessions labelled null that got no summary.
 garbage    Over every distinct text ever stored (any kind): 'loops' = a word 3-gram occurs >= 3
            times; 'voice' = a first/second-person pronoun (I, I'm, I've, I'd, I'll, my, me, you, your,
            you're, we) or an assistant opener; 'few-shot' = a word of the prompt's worked examples (Marta, Porto, Lisbon, jazz,
            podcast, commute, coffee) that the user did not type in the text's session; 'fragments' =
            fewer than 3 content words counting the subject 'user' as one (so 'User lives in Lisbon'
            is not one, 'Tidepool.db.' is).
 speed      Wall seconds per pass (median, p10-p90) and the report's prompt/generated tokens.

The held-out half is for reporting only: for it only aggregate figures are printed (and written to
--json) unless --show-held-out-details is given. --misses prints per-session detail for tune.
Exit status: 0, or 1 when a --min-precision / --min-coverage floor is not met by the pooled figures
of the halves played, 2 when the harness itself fails (setup, a missing file).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SET = os.path.join(ROOT, "tests", "data", "consolidation-set")
sys.path.insert(0, SET)
sys.dont_write_bytecode = True
from validate import content_words, matches, forbid_hits  # noqa: E402

FEW_SHOT = ["marta", "porto", "lisbon", "jazz", "podcast", "commute", "coffee"]
PRONOUNS = {"i", "i'm", "i've", "i'd", "i'll", "me", "my", "you", "your", "you're", "yours", "we", "our", "us"}
GARBAGE_PRONOUNS = {"i", "i'm", "i've", "i'd", "i'll", "my", "me", "you", "your", "you're", "we"}
OPENERS = ["sure", "certainly", "of course", "here", "as an ai", "i'm not sure", "hello", "hi ", "hi,",
           "sorry", "great", "let's", "the user"]
BAD_FIRST = {"it", "this", "that", "there", "is", "are", "was", "can", "could", "would", "should", "please",
             "he", "she", "they", "do", "does"}


class HarnessError(Exception):
    pass


def words(text):
    return [w.strip("'").lower() for w in re.split(r"[^\w']+", text) if w.strip("'")]


def norm(text):
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def cw(text):
    """validate.py content words, without 'user' (its STOP list misses the possessive "User's")."""
    return content_words(text) - {"user"}


def cw_with_user(text):
    return cw(text) | ({"user"} if "user" in words(text) or "user's" in words(text) else set())


def word_is_users(w, user):
    if w in user:
        return True
    for u in user:
        n = min(len(w), len(u))
        need = max(3, n - 1)
        if n >= need and w[:need] == u[:need]:
            return True
    return False


def grounded_share(text, user):
    ws = cw(text)
    if not ws:
        return 0.0
    return sum(word_is_users(w, user) for w in ws) / len(ws)


def voice_ok(text):
    t = text.strip().lower()
    ws = words(t)
    if not ws or any(w in PRONOUNS for w in ws):
        return False
    if any(t.startswith(o) for o in OPENERS):
        return False
    return ws[0] not in BAD_FIRST


def has_loop(text):
    ws = words(text)
    grams = {}
    for i in range(len(ws) - 2):
        g = tuple(ws[i:i + 3])
        grams[g] = grams.get(g, 0) + 1
    return any(c >= 3 for c in grams.values())


def garbage_voice(text):
    t = text.strip().lower()
    return any(w in GARBAGE_PRONOUNS for w in words(t)) or any(t.startswith(o) for o in OPENERS if o != "the user")


def pct(a, b):
    return a / b if b else None


def fmt(x):
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


# ---------------------------------------------------------------- playing a half

def load_half(half, limit):
    d = os.path.join(SET, half)
    labels = json.load(open(os.path.join(d, "labels.json"), encoding="utf-8"))["sessions"]
    ids = sorted(f[:-6] for f in os.listdir(d) if f.endswith(".jsonl"))
    if limit:
        ids = ids[:limit]
    sessions = []
    for sid in ids:
        path = os.path.join(d, sid + ".jsonl")
        msgs = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        typed = " ".join(m["content"] for m in msgs if m["role"] == "user" and "origin" not in m)
        last = datetime.strptime(msgs[-1]["ts"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        sessions.append({"id": sid, "path": path, "typed": typed, "user_words": content_words(typed),
                         "last_ts": last.timestamp(), "labels": labels[sid]})
    return sessions


def run(bin_, args, env, timeout=None):
    t = time.perf_counter()
    p = subprocess.run([bin_, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout)
    return p, time.perf_counter() - t


def setup(bin_, data, model, embed):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALM_") and k != "RUST_LOG"}
    env.update(LOCALM_DATA_DIR=data, LOCALM_MODE="log")
    steps = [["plugin", "install", "memory"], ["settings", "set", "mode", "log"], ["setup-model", "--from", model]]
    if embed:
        steps.append(["setup-embeddings", "--from", embed])
    for s in steps:
        p, _ = run(bin_, s, env, 300)
        if p.returncode != 0:
            raise HarnessError(f"`localm {' '.join(s)}` failed ({p.returncode}): {p.stderr.strip()[:500]}")
    return env


def play(half, sessions, a, log):
    data = tempfile.mkdtemp(prefix=f"localm-quality-{half}-")
    try:
        env = setup(a.bin, data, a.model, a.embed)
        sdir = os.path.join(data, "sessions")
        os.makedirs(sdir, exist_ok=True)
        passes = []
        for i, s in enumerate(sessions):
            dst = os.path.join(sdir, s["id"] + ".jsonl")
            shutil.copyfile(s["path"], dst)
            mt = min(s["last_ts"] + 60, time.time() - 1200 - (len(sessions) - i))
            os.utime(dst, (mt, mt))
            p, wall = run(a.bin, ["memory", "consolidate", "--json"], env, a.pass_timeout)
            try:
                rep = json.loads(p.stdout)
            except json.JSONDecodeError:
                rep = {"status": "error", "reason": (p.stderr.strip() or p.stdout.strip())[:300]}
            lp, _ = run(a.bin, ["memory", "list", "--json"], env, 120)
            if lp.returncode != 0:
                raise HarnessError(f"`localm memory list --json` failed: {lp.stderr.strip()[:300]}")
            recs = json.loads(lp.stdout)["records"]
            passes.append({"session": s["id"], "exit": p.returncode, "wall_s": wall, "report": rep, "records": recs})
            m = rep.get("model") or {}
            log(f"  {half} {i + 1:2}/{len(sessions)} {s['id'] if a.show(half) else '':28} {wall:6.1f} s  "
                f"status {rep.get('status')}  +{len(rep.get('added') or [])} ~{len(rep.get('updated') or [])} "
                f"-{len(rep.get('deleted') or [])} ep {len(rep.get('episodic') or [])}  "
                f"tokens {m.get('prompt_tokens', '?')}/{m.get('gen_tokens', '?')}")
        if a.keep_dir:
            with open(os.path.join(data, "passes.json"), "w", encoding="utf-8") as f:
                json.dump([{"session": s["id"], **p} for s, p in zip(sessions, passes)], f)
        return passes, data
    except BaseException:
        if not a.keep_dir:
            shutil.rmtree(data, ignore_errors=True)
        raise


# ---------------------------------------------------------------- scoring

def score(sessions, passes):
    idx = {s["id"]: i for i, s in enumerate(sessions)}
    forbids = [(idx[s["id"]], fb) for s in sessions for fb in s["labels"]["forbid"]]
    keeps = [(i, k) for i, s in enumerate(sessions) for k in s["labels"]["keep"]]

    # fact versions: id -> (text, pass index); each id's last text, attributed to the pass that stored it
    facts, prev, ever = {}, {}, {}
    for p_i, p in enumerate(passes):
        cur = {}
        for r in p["records"]:
            cur[r["id"]] = r["text"]
            ever.setdefault((r["id"], r["text"]), (p_i, r))
            if r["kind"] == "semantic" and r["source"] == "synth" and prev.get(r["id"]) != r["text"]:
                facts[r["id"]] = (r["text"], p_i)
        prev = cur

    def forbidden_by(text, p_i):
        out = []
        for f_i, fb in forbids:
            if not forbid_hits(text, fb):
                continue
            if p_i < f_i and any(k.get("superseded_by") == sessions[f_i]["id"] and k_i <= p_i and matches(text, k["match"])
                                 for k_i, k in keeps):
                continue
            out.append((sessions[f_i]["id"], fb["fact"]))
        return out

    fact_rows = []
    for fid, (text, p_i) in facts.items():
        s = sessions[p_i]
        fb = forbidden_by(text, p_i)
        g = grounded_share(text, s["user_words"])
        keep = [k["fact"] for k in s["labels"]["keep"] if matches(text, k["match"])]
        fact_rows.append({"id": fid, "text": text, "pass": p_i, "session": s["id"], "forbidden": fb,
                          "ground": g, "grounded": g >= 0.6, "keep": keep,
                          "ok": not fb and g >= 0.6})
    n = len(fact_rows)

    # coverage
    final = passes[-1]["records"] if passes else []
    final_sem = [r["text"] for r in final if r["kind"] == "semantic"]
    by_fact = {}
    for k_i, k in keeps:
        if k.get("superseded_by"):
            hit = any(r["kind"] == "semantic" and matches(r["text"], k["match"])
                      for p in passes[k_i:] for r in p["records"])
        else:
            hit = any(matches(t, k["match"]) for t in final_sem)
        key = k["fact"].strip().lower()
        by_fact.setdefault(key, {"fact": k["fact"], "covered": False, "sessions": []})
        by_fact[key]["covered"] |= hit
        by_fact[key]["sessions"].append(sessions[k_i]["id"])
    stale = 0
    for k_i, k in keeps:
        sb = k.get("superseded_by")
        if sb in idx:
            fbs = sessions[idx[sb]]["labels"]["forbid"]
            if any(forbid_hits(t, fb) for t in final_sem for fb in fbs):
                stale += 1

    # duplicates
    dup_pairs, in_pair = [], set()
    for i in range(len(final)):
        for j in range(i + 1, len(final)):
            a, b = final[i]["text"], final[j]["text"]
            ca, cb = cw(a), cw(b)
            jac = len(ca & cb) / len(ca | cb) if ca | cb else 0
            if norm(a) == norm(b) or (ca and cb and (ca <= cb or cb <= ca)) or jac >= 0.8:
                dup_pairs.append((a, b))
                in_pair.update((i, j))

    # summaries
    summaries = {}
    for (rid, text), (p_i, r) in ever.items():
        if r["kind"] == "episodic":
            for sid in (r.get("provenance") or {}).get("sessions") or []:
                summaries.setdefault(sid, []).append(text)
    sum_rows, labelled, matched_sessions, match_n, match_d, voice_n, voice_d, null_d, null_ok = [], 0, 0, 0, 0, 0, 0, 0, 0
    for s in sessions:
        lab = s["labels"]["summary"]
        got = summaries.get(s["id"], [])
        row = {"session": s["id"], "label": lab and lab["good"], "summaries": []}
        for t in got:
            m = bool(lab) and matches(t, lab["match"])
            v = voice_ok(t)
            voice_d += 1
            voice_n += v
            if lab:
                match_d += 1
                match_n += m
            row["summaries"].append({"text": t, "match": m if lab else None, "voice": v})
        if lab:
            labelled += 1
            matched_sessions += any(x["match"] for x in row["summaries"])
        else:
            null_d += 1
            null_ok += not got
        sum_rows.append(row)

    # garbage, over every distinct text ever stored
    g = {"loops": [], "voice": [], "few_shot": [], "fragments": []}
    seen = set()
    for (rid, text), (p_i, r) in ever.items():
        if text in seen:
            continue
        seen.add(text)
        srcs = (r.get("provenance") or {}).get("sessions") or [sessions[p_i]["id"]]
        typed = " ".join(sessions[idx[x]]["typed"] for x in srcs if x in idx).lower()
        if has_loop(text):
            g["loops"].append(text)
        if garbage_voice(text):
            g["voice"].append(text)
        tw = set(words(text))
        if any(w in tw and w not in set(words(typed)) for w in FEW_SHOT):
            g["few_shot"].append(text)
        if len(cw_with_user(text)) < 3:
            g["fragments"].append(text)

    walls = [p["wall_s"] for p in passes]
    ptok = [(p["report"].get("model") or {}).get("prompt_tokens") for p in passes]
    gtok = [(p["report"].get("model") or {}).get("gen_tokens") for p in passes]
    ptok, gtok = [x for x in ptok if x is not None], [x for x in gtok if x is not None]
    errors = [p["session"] for p in passes if p["exit"] != 0 or p["report"].get("status") != "ok"]

    n_forb = sum(bool(r["forbidden"]) for r in fact_rows)
    n_gr = sum(r["grounded"] for r in fact_rows)
    n_ok = sum(r["ok"] for r in fact_rows)
    n_keep = sum(bool(r["keep"]) for r in fact_rows)
    cov_n = sum(v["covered"] for v in by_fact.values())
    summary = {
        "sessions": len(sessions), "passes_failed": len(errors),
        "facts": n, "forbidden": n_forb, "grounded": n_gr, "true_and_grounded": n_ok, "keep_matched": n_keep,
        "forbidden_rate": pct(n_forb, n), "grounded_rate": pct(n_gr, n), "precision": pct(n_ok, n),
        "keep_facts": len(by_fact), "covered": cov_n, "coverage": pct(cov_n, len(by_fact)), "stale": stale,
        "records": len(final), "duplicate_pairs": len(dup_pairs), "duplicate_share": pct(len(in_pair), len(final)),
        "summaries": voice_d, "summary_match": pct(match_n, match_d), "summary_sessions_matched": pct(matched_sessions, labelled),
        "summary_voice": pct(voice_n, voice_d), "summary_null_ok": pct(null_ok, null_d),
        "summary_counts": {"match": [match_n, match_d], "sessions": [matched_sessions, labelled],
                           "voice": [voice_n, voice_d], "null_ok": [null_ok, null_d]},
        "garbage": {k: len(v) for k, v in g.items()}, "texts_stored": len(seen),
        "pass_s": {"median": statistics.median(walls) if walls else None, "p10": quantile(walls, 0.1),
                   "p90": quantile(walls, 0.9), "total": sum(walls)},
        "tokens": {"prompt_median": statistics.median(ptok) if ptok else None,
                   "gen_median": statistics.median(gtok) if gtok else None,
                   "prompt_total": sum(ptok), "gen_total": sum(gtok)},
    }
    details = {"facts": fact_rows, "keep": list(by_fact.values()), "duplicates": dup_pairs, "summaries": sum_rows,
               "garbage": g, "failed_passes": errors,
               "passes": [{"session": p["session"], "wall_s": p["wall_s"], "exit": p["exit"],
                           "report": {k: p["report"].get(k) for k in ("status", "reason", "added", "updated", "deleted",
                                                                      "proposed", "episodic", "archived", "skipped", "model")}}
                          for p in passes]}
    return summary, details


def pooled(results):
    tot = lambda k: sum(r[k] for r in results)
    sc = lambda k, i: sum(r["summary_counts"][k][i] for r in results)
    return {"facts": tot("facts"), "precision": pct(tot("true_and_grounded"), tot("facts")),
            "grounded_rate": pct(tot("grounded"), tot("facts")), "forbidden_rate": pct(tot("forbidden"), tot("facts")),
            "coverage": pct(tot("covered"), tot("keep_facts")), "duplicate_pairs": tot("duplicate_pairs"),
            "summary_match": pct(sc("match", 0), sc("match", 1)), "summary_voice": pct(sc("voice", 0), sc("voice", 1)),
            "summary_null_ok": pct(sc("null_ok", 0), sc("null_ok", 1)),
            "garbage": {k: sum(r["garbage"][k] for r in results) for k in results[0]["garbage"]}}


def table(half, s):
    t, sp = s["tokens"], s["pass_s"]
    g = s["garbage"]
    med = lambda x: "n/a" if x is None else f"{x:.1f}"
    return "\n".join([
        f"== {half}: {s['sessions']} sessions, {s['passes_failed']} passes failed",
        f"  precision      {fmt(s['precision'])}  ({s['true_and_grounded']}/{s['facts']} facts not forbidden and grounded; "
        f"{s['keep_matched']} match a keep label)",
        f"  grounded       {fmt(s['grounded_rate'])}  ({s['grounded']}/{s['facts']})",
        f"  forbidden-hit  {fmt(s['forbidden_rate'])}  ({s['forbidden']}/{s['facts']})",
        f"  coverage       {fmt(s['coverage'])}  ({s['covered']}/{s['keep_facts']} distinct keep facts; "
        f"{s['stale']} superseded labels still stale in the final store)",
        f"  duplicates     {s['duplicate_pairs']} pairs, {fmt(s['duplicate_share'])} of {s['records']} final records in one",
        f"  summaries      {s['summaries']} stored: match {fmt(s['summary_match'])}, labelled sessions matched "
        f"{fmt(s['summary_sessions_matched'])}, voice {fmt(s['summary_voice'])}, null sessions left alone {fmt(s['summary_null_ok'])}",
        f"  garbage        loops {g['loops']}, voice {g['voice']}, few-shot copies {g['few_shot']}, fragments {g['fragments']} "
        f"(of {s['texts_stored']} distinct texts stored)",
        f"  pass time      median {med(sp['median'])} s, p10 {med(sp['p10'])} - p90 {med(sp['p90'])} s, total {med(sp['total'])} s",
        f"  tokens/pass    prompt median {t['prompt_median']}, generated median {t['gen_median']} "
        f"(totals {t['prompt_total']} / {t['gen_total']})",
    ])


def misses(half, d):
    out = [f"== {half}: details"]
    by_session = {}
    for f in d["facts"]:
        by_session.setdefault(f["session"], []).append(f)
    sums = {r["session"]: r for r in d["summaries"]}
    for p in d["passes"]:
        sid = p["session"]
        rep = p["report"]
        out.append(f"-- {sid} ({p['wall_s']:.1f} s, status {rep.get('status')}{', ' + str(rep.get('reason')) if rep.get('reason') else ''})")
        for f in by_session.get(sid, []):
            tags = []
            if f["forbidden"]:
                tags.append("FORBIDDEN by " + "; ".join(f"{s}: '{t}'" for s, t in f["forbidden"]))
            if not f["grounded"]:
                tags.append(f"UNGROUNDED ({100 * f['ground']:.0f}% user words)")
            if f["keep"]:
                tags.append("keep: " + "; ".join(f["keep"]))
            out.append(f"   fact  {f['text']!r}  {' | '.join(tags) or 'unlabelled, grounded'}")
        for sk in rep.get("skipped") or []:
            out.append(f"   skip  {sk['text']!r}  ({sk['why']})")
        s = sums[sid]
        for x in s["summaries"]:
            m = "" if x["match"] is None else ("match" if x["match"] else "NO MATCH")
            out.append(f"   summ  {x['text']!r}  {m} {'voice ok' if x['voice'] else 'BAD VOICE'}  (label: {s['label']!r})")
        if not s["summaries"]:
            out.append(f"   summ  (none)  (label: {s['label']!r})")
    missed = [k for k in d["keep"] if not k["covered"]]
    out.append(f"-- keep facts missed ({len(missed)}):")
    out += [f"   {k['fact']!r}  ({', '.join(k['sessions'])})" for k in missed]
    out.append(f"-- duplicate pairs in the final store ({len(d['duplicates'])}):")
    out += [f"   {a!r} ~ {b!r}" for a, b in d["duplicates"]]
    for k, v in d["garbage"].items():
        if v:
            out.append(f"-- garbage {k} ({len(v)}):")
            out += [f"   {t!r}" for t in v]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the localm binary to measure")
    ap.add_argument("--report", metavar="JSON", help="play nothing: print the tables (and --misses) of a saved --json")
    ap.add_argument("--rescore", metavar="DIR", action="append", default=[],
                    help="play nothing: score the passes.json a --keep-dir run left in DIR (repeat for both halves)")
    ap.add_argument("--model", default=os.environ.get("LOCALM_TEST_LLM_MODEL") or os.path.join(ROOT, "test-models", "SmolLM2-135M-Instruct.Q4_1.gguf"),
                    help="GGUF for setup-model (default $LOCALM_TEST_LLM_MODEL or test-models/SmolLM2-135M-Instruct.Q4_1.gguf)")
    ap.add_argument("--embed", default=os.environ.get("LOCALM_TEST_EMBED_MODEL") or os.path.join(ROOT, "test-models", "all-MiniLM-L6-v2"),
                    help="sentence-transformers folder for setup-embeddings ('' for none; default $LOCALM_TEST_EMBED_MODEL or test-models/all-MiniLM-L6-v2)")
    ap.add_argument("--half", choices=["tune", "held-out", "both"], default="both")
    ap.add_argument("--misses", action="store_true", help="per-session detail (tune only, unless --show-held-out-details)")
    ap.add_argument("--show-held-out-details", action="store_true", help="also print and save held-out details (never tune on them)")
    ap.add_argument("--json", metavar="OUT", help="write figures (and tune details) as JSON")
    ap.add_argument("--keep-dir", action="store_true", help="keep the data dirs for inspection")
    ap.add_argument("--sessions", type=int, default=0, metavar="N", help="only the first N sessions of each half")
    ap.add_argument("--pass-timeout", type=float, default=1800, help="seconds one pass may take (default 1800)")
    ap.add_argument("--min-precision", type=float, help="exit 1 when pooled precision is below X (0-1)")
    ap.add_argument("--min-coverage", type=float, help="exit 1 when pooled coverage is below Y (0-1)")
    a = ap.parse_args()
    a.show = lambda half: half == "tune" or a.show_held_out_details
    if a.report:
        saved = json.load(open(a.report, encoding="utf-8"))
        for half, h in saved["halves"].items():
            if a.half in (half, "both"):
                print(table(half, h["summary"]))
                if a.misses and a.show(half) and "details" in h:
                    print(misses(half, h["details"]))
        return 0
    if not a.bin and not a.rescore:
        ap.error("--bin is required (or --report, --rescore)")
    rescored = {}
    for d in a.rescore:
        passes = json.load(open(os.path.join(d, "passes.json"), encoding="utf-8"))
        half = next(h for h in ("tune", "held-out") if os.path.exists(os.path.join(SET, h, passes[0]["session"] + ".jsonl")))
        rescored[half] = (passes, d)
    if rescored:
        a.half = "both" if len(rescored) == 2 else next(iter(rescored))
        a.bin = a.bin or "(rescored)"
        a.keep_dir = True
    for path, what in ((a.bin, "--bin"), (a.model, "--model")):
        if not rescored and not os.path.exists(path):
            print(f"bench-quality: {what} {path} not found", file=sys.stderr)
            return 2
    if a.embed and not rescored and not os.path.exists(a.embed):
        print(f"bench-quality: --embed {a.embed} not found", file=sys.stderr)
        return 2
    log = lambda m: print(m, file=sys.stderr, flush=True)
    halves = ["tune", "held-out"] if a.half == "both" else [a.half]
    out = {"bin": a.bin, "model": a.model, "embed": a.embed or None, "sessions_limit": a.sessions or None,
           "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "halves": {}}
    results = []
    try:
        for half in halves:
            sessions = load_half(half, a.sessions)
            if half in rescored:
                passes, data = rescored[half]
                sessions = sessions[:len(passes)]
            else:
                log(f"== playing {half} ({len(sessions)} sessions) with {a.bin}")
                passes, data = play(half, sessions, a, log)
            s, d = score(sessions, passes)
            results.append(s)
            out["halves"][half] = {"summary": s}
            if a.show(half):
                out["halves"][half]["details"] = d
            if a.keep_dir:
                s["data_dir"] = data
                log(f"  data dir kept: {data}")
            else:
                shutil.rmtree(data, ignore_errors=True)
            print(table(half, s), flush=True)
            if a.misses and a.show(half):
                print(misses(half, d), flush=True)
    except (HarnessError, OSError, subprocess.TimeoutExpired, KeyError, StopIteration, json.JSONDecodeError) as e:
        print(f"bench-quality: {e}", file=sys.stderr)
        return 2
    p = pooled(results)
    out["pooled"] = p
    print(f"== all ({', '.join(halves)}): precision {fmt(p['precision'])}, grounded {fmt(p['grounded_rate'])}, "
          f"forbidden-hit {fmt(p['forbidden_rate'])}, coverage {fmt(p['coverage'])}, duplicate pairs {p['duplicate_pairs']}, "
          f"summary match {fmt(p['summary_match'])} voice {fmt(p['summary_voice'])} null ok {fmt(p['summary_null_ok'])}, "
          f"garbage {p['garbage']}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    rc = 0
    if a.min_precision is not None and (p["precision"] or 0) < a.min_precision:
        print(f"bench-quality: precision {fmt(p['precision'])} below the floor {a.min_precision:.2f}", file=sys.stderr)
        rc = 1
    if a.min_coverage is not None and (p["coverage"] or 0) < a.min_coverage:
        print(f"bench-quality: coverage {fmt(p['coverage'])} below the floor {a.min_coverage:.2f}", file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
