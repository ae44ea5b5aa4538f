#!/usr/bin/env python3
"""Persona benchmark: plays Synthetic-Persona-Chat conversations (tests/data/persona-chat, CC BY 4.0)
through a `localm` binary, each conversation as one user in its OWN fresh data dir, one
`localm memory consolidate --json` pass, then `memory list --json`; scores what the store holds
against the speakers' persona lines. "User 1" is played as the user, "User 2" as the assistant.

How a conversation is played: a temp data dir (LOCALM_DATA_DIR) gets `plugin install memory` and
`settings set mode log`; then settings.json gets `llm_model` = --model and `embedding_model` =
--embed as absolute paths (what `setup-model --from` / `setup-embeddings --from` leave behind,
without copying 100 MB 80 times and re-checking the load each time; --copy-models runs the real
setup commands instead, as bench-quality does). The conversation becomes sessions/persona-SPLIT-NNN
.jsonl: a line "User 1: ..." opens a user turn, "User 2: ..." an assistant turn (speaker prefix
matched case-insensitively, spaces allowed), any other non-empty line continues the previous turn
(joined with a newline; lines before the first speaker are dropped); ts one minute apart from
2026-11-02T10:00:00Z; mtime a minute after the last ts and at least 20 minutes in the past, so the
pass finds it quiet and summarises it.

Rules (all over the final store of the conversation's data dir; "facts" = semantic records with
source synth):
 content words  tests/data/consolidation-set/validate.py content_words (core/src/recall/lexical.rs
            STOP_WORDS, no stemming), minus 'user' and the contractions i've i'd i'll you're you've
            you'd you'll we're we've they're that's there's it'll.
 same word  two content words are the same when equal, equal once one trailing 's' is dropped from
            either (dogs~dog), or they share a prefix of max(4, shorter length - 1) letters
            (cooking~cooks is missed, baking~bake is missed, musician~music matches).
 match      a text matches a persona line when at least half of the line's content words (and at
            least one) have the same word among the text's content words. Persona lines with no
            content words are left out of every figure.
 disclosed  a User 1 persona line is disclosed when User 1's turns, joined as one text, match it.
 coverage   User 1 persona lines matched by some fact / all User 1 persona lines.
 coverage of disclosed lines
            the same over the disclosed lines only (what the conversation let a reader keep).
 precision (proxy)
            facts matching some User 1 persona line / facts. A true fact the persona does not list
            ("User is a student") counts against it: see --labels for hand-labelled precision.
 leakage    facts that match no User 1 persona line, have fewer than 60% of their content words in
            User 1's turns (so "User loves dogs" after User 1's "I love dogs too" is not a leak), AND
            either match a User 2 persona line or have at least 60% of their content words User 2's
            only (the same word occurs in User 2's turns and not in User 1's) / facts. A fact with
            no content words never leaks.
 summaries  conversations with at least one episodic record whose provenance names the session /
            conversations played; also shown: conversations with >= 3 distinct content words
            (validate.py content_words, the product's rule) in User 1's turns, which are promised one.
 garbage    over every distinct text stored (any kind): 'loops' = a word 3-gram occurs >= 3 times;
            'voice' = a first/second-person pronoun or an assistant opener (bench-quality's rule);
            'placeholders' = a [bracketed span] ("[User 1's name]", "[your name]") or the words
            "User 1" / "User 2"; 'few-shot' = a word of the prompt's worked examples (bench-quality's
            list) that the conversation does not contain.
 pass time  wall seconds of the consolidate command (median, p10-p90); prompt/generated tokens
            median from the report's `model` field.
 hand precision
            --labels FILE (a --sample file with "label" set to "keep" or "bad"): this run's facts
            whose (split, conversation index, normalised text) has a label; keep / labelled.

`valid` is for tuning; `test` is reported in aggregate only: its per-conversation details are never
printed nor written to --json unless --show-test-details is given (the --sample file holds test
facts and context for the labeller, in the file only). Exit status: 0, or 1 when a floor
(--min-coverage on the pooled coverage of disclosed lines, --max-leakage, --min-summaries on the
pooled summary share) is missed, 2 when the harness itself fails.
"""
import argparse
import csv
import importlib.util
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SET = os.path.join(ROOT, "tests", "data", "persona-chat")
SPLITS = ["valid", "test"]
START = datetime(2026, 11, 2, 10, 0, 0, tzinfo=timezone.utc)
SAMPLE_SEED = "localm-persona-sample-1"

sys.dont_write_bytecode = True
_spec = importlib.util.spec_from_file_location("bench_quality", os.path.join(HERE, "bench-quality.py"))
bq = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bq)
HarnessError, run, fmt, pct, quantile, norm = bq.HarnessError, bq.run, bq.fmt, bq.pct, bq.quantile, bq.norm

EXTRA_STOP = {"user", "i've", "i'd", "i'll", "you're", "you've", "you'd", "you'll", "we're", "we've",
              "they're", "that's", "there's", "it'll"}
SPEAKER = re.compile(r"^\s*user\s*([12])\s*:\s*", re.I)
PLACEHOLDER = re.compile(r"\[[^\[\]]{1,60}\]|\buser [12]\b", re.I)


# ---------------------------------------------------------------- the rules

def cw(text):
    return bq.content_words(text) - EXTRA_STOP


def same_word(a, b):
    if a == b or (a.endswith("s") and a[:-1] == b) or (b.endswith("s") and b[:-1] == a):
        return True
    need = max(4, min(len(a), len(b)) - 1)
    return len(a) >= need and len(b) >= need and a[:need] == b[:need]


def has_word(w, ws):
    return any(same_word(w, x) for x in ws)


def matches_line(text_words, line_words):
    """At least half of the persona line's content words (and at least one) occur in the text."""
    if not line_words:
        return False
    hit = sum(has_word(w, text_words) for w in line_words)
    return hit >= 1 and 2 * hit >= len(line_words)


def leaks(fact_words, u1_lines, u2_lines, u1_turn_words, u2_turn_words):
    if not fact_words or any(matches_line(fact_words, l) for l in u1_lines):
        return False
    if sum(has_word(w, u1_turn_words) for w in fact_words) / len(fact_words) >= 0.6:
        return False
    if any(matches_line(fact_words, l) for l in u2_lines):
        return True
    only2 = sum(has_word(w, u2_turn_words) and not has_word(w, u1_turn_words) for w in fact_words)
    return only2 / len(fact_words) >= 0.6


# ---------------------------------------------------------------- the set

def parse_turns(conversation):
    """[(role, text)]: 'User 1:' opens a user turn, 'User 2:' an assistant turn, other lines continue."""
    turns = []
    for line in conversation.splitlines():
        m = SPEAKER.match(line)
        if m:
            turns.append(["user" if m.group(1) == "1" else "assistant", line[m.end():].strip()])
        elif line.strip() and turns:
            turns[-1][1] = (turns[-1][1] + "\n" + line.strip()).strip()
    return [(r, t) for r, t in turns if t]


def persona_lines(cell):
    return [l.strip() for l in cell.splitlines() if l.strip()]


def load_split(split, limit):
    with open(os.path.join(SET, split + ".csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if limit:
        rows = rows[:limit]
    convs = []
    for i, r in enumerate(rows):
        turns = parse_turns(r["Best Generated Conversation"])
        u1 = " ".join(t for role, t in turns if role == "user")
        u2 = " ".join(t for role, t in turns if role == "assistant")
        u1w, u2w = cw(u1), cw(u2)
        p1 = [(l, cw(l)) for l in persona_lines(r["user 1 personas"])]
        p2 = [(l, cw(l)) for l in persona_lines(r["user 2 personas"])]
        convs.append({
            "index": i, "id": f"persona-{split}-{i:03d}", "turns": turns, "u1_words": u1w, "u2_words": u2w,
            "all_words": set(bq.words(r["Best Generated Conversation"])),
            "p1": [{"line": l, "words": w, "disclosed": matches_line(u1w, w)} for l, w in p1 if w],
            "p1_empty": sum(1 for _, w in p1 if not w),
            "p2": [w for _, w in p2 if w],
            "promised_summary": len(bq.content_words(u1)) >= 3,
        })
    return convs


def session_jsonl(conv):
    out = []
    for k, (role, text) in enumerate(conv["turns"]):
        ts = (START + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(json.dumps({"ts": ts, "role": role, "content": text}, ensure_ascii=False))
    return "\n".join(out) + "\n", (START + timedelta(minutes=max(len(conv["turns"]) - 1, 0))).timestamp()


# ---------------------------------------------------------------- playing

def setup_linked(bin_, data, model, embed):
    """A fresh data dir whose settings point at the model files in place (no copies)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALM_") and k != "RUST_LOG"}
    env.update(LOCALM_DATA_DIR=data, LOCALM_MODE="log")
    for s in (["plugin", "install", "memory"], ["settings", "set", "mode", "log"]):
        p, _ = run(bin_, s, env, 120)
        if p.returncode != 0:
            raise HarnessError(f"`localm {' '.join(s)}` failed ({p.returncode}): {p.stderr.strip()[:500]}")
    path = os.path.join(data, "settings.json")
    settings = json.load(open(path, encoding="utf-8"))
    settings["llm_model"] = os.path.abspath(model)
    if embed:
        settings["embedding_model"] = os.path.abspath(embed)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=2)
    return env


def play(split, convs, a, log):
    parent = tempfile.mkdtemp(prefix=f"localm-persona-{split}-")
    passes = []
    try:
        for c in convs:
            data = os.path.join(parent, f"c{c['index']:03d}")
            os.makedirs(data)
            env = (bq.setup if a.copy_models else setup_linked)(a.bin, data, a.model, a.embed)
            sdir = os.path.join(data, "sessions")
            os.makedirs(sdir, exist_ok=True)
            text, last = session_jsonl(c)
            dst = os.path.join(sdir, c["id"] + ".jsonl")
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
            mt = min(last + 60, time.time() - 1200)
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
            passes.append({"index": c["index"], "session": c["id"], "exit": p.returncode, "wall_s": wall,
                           "report": rep, "records": recs})
            m = rep.get("model") or {}
            log(f"  {split} {c['index'] + 1:2}/{len(convs)} {wall:6.1f} s  status {rep.get('status')}  "
                f"+{len(rep.get('added') or [])} ep {len(rep.get('episodic') or [])}  "
                f"tokens {m.get('prompt_tokens', '?')}/{m.get('gen_tokens', '?')}")
            if not a.keep_dir:
                shutil.rmtree(data, ignore_errors=True)
        with open(os.path.join(parent, "passes.json"), "w", encoding="utf-8") as f:
            json.dump({"split": split, "bin": a.bin, "passes": passes}, f)
        return passes, parent
    except BaseException:
        if not a.keep_dir:
            shutil.rmtree(parent, ignore_errors=True)
        raise


# ---------------------------------------------------------------- scoring

def score(convs, passes):
    rows = []
    n_lines = n_disc = cov = cov_disc = n_facts = prec = leak = summ = promised = promised_summ = 0
    garbage = {"loops": [], "voice": [], "placeholders": [], "few_shot": []}
    texts_seen = 0
    for c, p in zip(convs, passes):
        recs = p["records"]
        facts = [r["text"] for r in recs if r["kind"] == "semantic" and r["source"] == "synth"]
        u1_lines = [x["words"] for x in c["p1"]]
        fact_rows = []
        for t in facts:
            fw = cw(t)
            m1 = [x["line"] for x in c["p1"] if matches_line(fw, x["words"])]
            lk = leaks(fw, u1_lines, c["p2"], c["u1_words"], c["u2_words"])
            fact_rows.append({"text": t, "matches": m1, "leak": lk})
        line_rows = []
        for x in c["p1"]:
            covered = any(matches_line(cw(t), x["words"]) for t in facts)
            line_rows.append({"line": x["line"], "disclosed": x["disclosed"], "covered": covered})
        sums = [r["text"] for r in recs if r["kind"] == "episodic"
                and c["id"] in ((r.get("provenance") or {}).get("sessions") or [])]
        n_lines += len(line_rows)
        n_disc += sum(r["disclosed"] for r in line_rows)
        cov += sum(r["covered"] for r in line_rows)
        cov_disc += sum(r["covered"] and r["disclosed"] for r in line_rows)
        n_facts += len(fact_rows)
        prec += sum(bool(f["matches"]) for f in fact_rows)
        leak += sum(f["leak"] for f in fact_rows)
        summ += bool(sums)
        promised += c["promised_summary"]
        promised_summ += c["promised_summary"] and bool(sums)
        for t in sorted({r["text"] for r in recs}):
            texts_seen += 1
            if bq.has_loop(t):
                garbage["loops"].append(t)
            if bq.garbage_voice(t):
                garbage["voice"].append(t)
            if PLACEHOLDER.search(t):
                garbage["placeholders"].append(t)
            tw = set(bq.words(t))
            if any(w in tw and w not in c["all_words"] for w in bq.FEW_SHOT):
                garbage["few_shot"].append(t)
        rep = p["report"]
        rows.append({"index": c["index"], "session": c["id"], "wall_s": p["wall_s"], "exit": p["exit"],
                     "status": rep.get("status"), "reason": rep.get("reason"), "persona": line_rows,
                     "facts": fact_rows, "summaries": sums, "promised_summary": c["promised_summary"],
                     "skipped": rep.get("skipped") or [],
                     "other_records": [r["text"] for r in recs if r["kind"] == "semantic" and r["source"] != "synth"]})
    walls = [p["wall_s"] for p in passes]
    tok = lambda k: [x for x in ((p["report"].get("model") or {}).get(k) for p in passes) if x is not None]
    ptok, gtok = tok("prompt_tokens"), tok("gen_tokens")
    failed = [p["index"] for p in passes if p["exit"] != 0 or p["report"].get("status") != "ok"]
    s = {
        "conversations": len(passes), "passes_failed": len(failed),
        "persona_lines": n_lines, "disclosed_lines": n_disc,
        "persona_lines_without_content_words": sum(c["p1_empty"] for c in convs[:len(passes)]),
        "covered": cov, "coverage": pct(cov, n_lines),
        "covered_disclosed": cov_disc, "coverage_disclosed": pct(cov_disc, n_disc),
        "facts": n_facts, "persona_matched": prec, "precision_proxy": pct(prec, n_facts),
        "leaked": leak, "leakage": pct(leak, n_facts),
        "summarised": summ, "summary_share": pct(summ, len(passes)),
        "promised_summary": promised, "promised_summarised": promised_summ,
        "garbage": {k: len(v) for k, v in garbage.items()}, "texts_stored": texts_seen,
        "pass_s": {"median": statistics.median(walls) if walls else None, "p10": quantile(walls, 0.1),
                   "p90": quantile(walls, 0.9), "total": sum(walls)},
        "tokens": {"prompt_median": statistics.median(ptok) if ptok else None,
                   "gen_median": statistics.median(gtok) if gtok else None},
    }
    return s, {"conversations": rows, "garbage": garbage, "failed": failed}


POOL_KEYS = ["conversations", "persona_lines", "disclosed_lines", "covered", "covered_disclosed", "facts",
             "persona_matched", "leaked", "summarised"]


def pooled(results):
    t = {k: sum(r[k] for r in results) for k in POOL_KEYS}
    return {**t, "coverage": pct(t["covered"], t["persona_lines"]),
            "coverage_disclosed": pct(t["covered_disclosed"], t["disclosed_lines"]),
            "precision_proxy": pct(t["persona_matched"], t["facts"]), "leakage": pct(t["leaked"], t["facts"]),
            "summary_share": pct(t["summarised"], t["conversations"])}


def table(split, s):
    sp, t, g = s["pass_s"], s["tokens"], s["garbage"]
    med = lambda x: "n/a" if x is None else f"{x:.1f}"
    lines = [
        f"== {split}: {s['conversations']} conversations, {s['passes_failed']} passes failed",
        f"  persona lines       {s['persona_lines']} of User 1 ({s['disclosed_lines']} disclosed in User 1's turns, "
        f"{s['persona_lines_without_content_words']} without content words left out)",
        f"  coverage            {fmt(s['coverage'])}  ({s['covered']}/{s['persona_lines']} User 1 persona lines matched by a fact)",
        f"  coverage disclosed  {fmt(s['coverage_disclosed'])}  ({s['covered_disclosed']}/{s['disclosed_lines']} disclosed lines matched)",
        f"  precision (proxy)   {fmt(s['precision_proxy'])}  ({s['persona_matched']}/{s['facts']} facts match a User 1 persona line)",
        f"  leakage             {fmt(s['leakage'])}  ({s['leaked']}/{s['facts']} facts User 2's, not User 1's)",
        f"  summaries           {fmt(s['summary_share'])}  ({s['summarised']}/{s['conversations']} conversations; "
        f"{s['promised_summarised']}/{s['promised_summary']} of those with >= 3 User 1 content words)",
        f"  garbage             loops {g['loops']}, voice {g['voice']}, placeholders {g['placeholders']}, "
        f"few-shot copies {g['few_shot']} (of {s['texts_stored']} distinct texts stored)",
        f"  pass time           median {med(sp['median'])} s, p10 {med(sp['p10'])} - p90 {med(sp['p90'])} s, "
        f"total {med(sp['total'])} s",
        f"  tokens/pass         prompt median {t['prompt_median']}, generated median {t['gen_median']}",
    ]
    if "hand" in s:
        h = s["hand"]
        lines.append(f"  hand precision      {fmt(h['precision'])}  ({h['keep']}/{h['labelled']} labelled facts of this run kept; "
                     f"{h['unlabelled']} facts unlabelled)")
    return "\n".join(lines)


def misses(split, d):
    out = [f"== {split}: per conversation"]
    for r in d["conversations"]:
        out.append(f"-- #{r['index']} {r['session']} ({r['wall_s']:.1f} s, status {r['status']}"
                   f"{', ' + str(r['reason']) if r['reason'] else ''})")
        for x in r["persona"]:
            tag = "covered" if x["covered"] else "MISSED"
            out.append(f"   persona  {tag:7} {'disclosed' if x['disclosed'] else 'unsaid   '}  {x['line']!r}")
        for f in r["facts"]:
            tag = "matches " + " | ".join(repr(m) for m in f["matches"]) if f["matches"] else ("LEAK" if f["leak"] else "no persona line")
            out.append(f"   fact     {f['text']!r}  {tag}")
        for sk in r["skipped"]:
            out.append(f"   skip     {sk.get('text')!r}  ({sk.get('why')})")
        for t in r["summaries"]:
            out.append(f"   summary  {t!r}")
        if not r["summaries"]:
            out.append(f"   summary  (none{'; one was promised' if r['promised_summary'] else ''})")
    for k, v in d["garbage"].items():
        if v:
            out.append(f"-- garbage {k} ({len(v)}):")
            out += [f"   {t!r}" for t in v]
    return "\n".join(out)


# ---------------------------------------------------------------- hand labels

def fact_key(split, index, text):
    return (split, int(index), norm(text))


def write_sample(path, n, per_split):
    with open(path, "w", encoding="utf-8") as f:
        for split, (convs, d) in per_split.items():
            facts = [(r["index"], x["text"]) for r in d["conversations"] for x in r["facts"]]
            rng = random.Random(f"{SAMPLE_SEED}:{split}")
            pick = sorted(rng.sample(range(len(facts)), min(n, len(facts))))
            by_index = {c["index"]: c for c in convs}
            for k in pick:
                i, text = facts[k]
                turns = [t for role, t in by_index[i]["turns"] if role == "user"]
                f.write(json.dumps({"split": split, "conversation": i, "fact": text, "label": None,
                                    "user_turns": turns}, ensure_ascii=False) + "\n")
    return path


def read_labels(path):
    labels = {}
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        o = json.loads(line)
        lab = o.get("label")
        if lab is None:
            continue
        if lab not in ("keep", "bad"):
            raise HarnessError(f"{path}:{n}: label must be 'keep', 'bad' or null, not {lab!r}")
        labels[fact_key(o["split"], o["conversation"], o["fact"])] = lab
    return labels


def hand_precision(split, d, labels):
    keep = labelled = unlabelled = 0
    for r in d["conversations"]:
        for x in r["facts"]:
            lab = labels.get(fact_key(split, r["index"], x["text"]))
            if lab is None:
                unlabelled += 1
            else:
                labelled += 1
                keep += lab == "keep"
    return {"keep": keep, "labelled": labelled, "unlabelled": unlabelled, "precision": pct(keep, labelled)}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the localm binary to measure")
    ap.add_argument("--rescore", metavar="DIR", action="append", default=[],
                    help="play nothing: score the passes.json a run left in DIR (printed at the end; repeat per split)")
    ap.add_argument("--model", default=os.environ.get("LOCALM_TEST_LLM_MODEL") or os.path.join(ROOT, "test-models", "SmolLM2-135M-Instruct.Q4_1.gguf"),
                    help="GGUF (default $LOCALM_TEST_LLM_MODEL or test-models/SmolLM2-135M-Instruct.Q4_1.gguf)")
    ap.add_argument("--embed", default=os.environ.get("LOCALM_TEST_EMBED_MODEL") or os.path.join(ROOT, "test-models", "all-MiniLM-L6-v2"),
                    help="sentence-transformers folder ('' for none; default $LOCALM_TEST_EMBED_MODEL or test-models/all-MiniLM-L6-v2)")
    ap.add_argument("--copy-models", action="store_true", help="install the models with setup-model/setup-embeddings --from (slow)")
    ap.add_argument("--split", choices=["valid", "test", "both"], default="both")
    ap.add_argument("--conversations", type=int, default=0, metavar="N", help="only the first N conversations of each split")
    ap.add_argument("--misses", action="store_true", help="per-conversation detail (valid only, unless --show-test-details)")
    ap.add_argument("--show-test-details", action="store_true", help="also print and save test details (never tune on them)")
    ap.add_argument("--json", metavar="OUT", help="write figures (and valid details) as JSON")
    ap.add_argument("--keep-dir", action="store_true", help="keep every conversation's data dir (passes.json is always kept)")
    ap.add_argument("--sample", type=int, metavar="N", help="write N random facts per split for hand labelling (needs --sample-out)")
    ap.add_argument("--sample-out", metavar="FILE", help="where --sample writes its JSONL")
    ap.add_argument("--labels", metavar="FILE", action="append",
                    help="a labelled --sample file: report hand-labelled precision (repeat to add "
                         "files; a later file's label wins)")
    ap.add_argument("--pass-timeout", type=float, default=1800, help="seconds one pass may take (default 1800)")
    ap.add_argument("--min-coverage", type=float, help="exit 1 when the pooled coverage of disclosed lines is below X (0-1)")
    ap.add_argument("--max-leakage", type=float, help="exit 1 when pooled leakage is above X (0-1)")
    ap.add_argument("--min-summaries", type=float, help="exit 1 when the pooled summary share is below X (0-1)")
    a = ap.parse_args()
    show = lambda split: split == "valid" or a.show_test_details
    if (a.sample is None) != (a.sample_out is None):
        ap.error("--sample and --sample-out go together")
    rescored = {}
    try:
        for d in a.rescore:
            saved = json.load(open(os.path.join(d, "passes.json"), encoding="utf-8"))
            rescored[saved["split"]] = (saved["passes"], d)
    except (OSError, KeyError, json.JSONDecodeError) as e:
        print(f"bench-persona: {e}", file=sys.stderr)
        return 2
    if rescored:
        splits = [s for s in SPLITS if s in rescored]
        a.bin = a.bin or "(rescored)"
    else:
        if not a.bin:
            ap.error("--bin is required (or --rescore)")
        splits = SPLITS if a.split == "both" else [a.split]
        for path, what in ((a.bin, "--bin"), (a.model, "--model")) + (((a.embed, "--embed"),) if a.embed else ()):
            if not os.path.exists(path):
                print(f"bench-persona: {what} {path} not found", file=sys.stderr)
                return 2
    log = lambda m: print(m, file=sys.stderr, flush=True)
    out = {"bin": a.bin, "model": a.model, "embed": a.embed or None, "conversations_limit": a.conversations or None,
           "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "splits": {}}
    results, per_split = [], {}
    try:
        labels = {k: v for path in a.labels for k, v in read_labels(path).items()} if a.labels else None
        for split in splits:
            convs = load_split(split, a.conversations)
            if split in rescored:
                passes, parent = rescored[split]
                convs = [convs[p["index"]] for p in passes]
            else:
                log(f"== playing {split} ({len(convs)} conversations) with {a.bin}")
                passes, parent = play(split, convs, a, log)
            s, d = score(convs, passes)
            s["run_dir"] = parent
            if labels is not None:
                s["hand"] = hand_precision(split, d, labels)
            results.append(s)
            per_split[split] = (convs, d)
            out["splits"][split] = {"summary": s}
            if show(split):
                out["splits"][split]["details"] = d
            print(table(split, s), flush=True)
            if a.misses and show(split):
                print(misses(split, d), flush=True)
            log(f"  passes kept in {parent} (rescore with --rescore {parent})")
        if a.sample is not None:
            log(f"  sample of {a.sample} facts per split written to {write_sample(a.sample_out, a.sample, per_split)}")
    except (HarnessError, OSError, subprocess.TimeoutExpired, KeyError, IndexError, json.JSONDecodeError) as e:
        print(f"bench-persona: {e}", file=sys.stderr)
        return 2
    p = pooled(results)
    out["pooled"] = p
    print(f"== all ({', '.join(splits)}): coverage {fmt(p['coverage'])}, coverage of disclosed lines "
          f"{fmt(p['coverage_disclosed'])}, precision (proxy) {fmt(p['precision_proxy'])}, leakage {fmt(p['leakage'])}, "
          f"summaries {fmt(p['summary_share'])}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    rc = 0
    for name, val, floor, low in (("coverage of disclosed lines", p["coverage_disclosed"], a.min_coverage, True),
                                  ("leakage", p["leakage"], a.max_leakage, False),
                                  ("summary share", p["summary_share"], a.min_summaries, True)):
        if floor is not None and ((val or 0) < floor if low else (val or 0) > floor):
            print(f"bench-persona: {name} {fmt(val)} {'below' if low else 'above'} the floor {floor:.2f}", file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
