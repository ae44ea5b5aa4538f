#!/usr/bin/env python3
"""XPersona benchmark: what memory keeps of persona chats in French, Italian, Indonesian, Chinese,
Japanese and Korean (tests/data/xpersona, MIT: machine-translated from PersonaChat and corrected
by people). Each dialogue is one user in its own fresh data dir: the persona's owner plays the
user, the other speaker the assistant; one `localm memory consolidate --json` pass, then
`memory list --json`.

Rules (tests/data/xpersona/README.md says the same):
 units      what a text says: its words, each cut to its first five letters, without the
            language's commonest function words (French, Italian, Indonesian); its character
            bigrams, punctuation and spaces left out (Chinese, Japanese, Korean).
 disclosed  a persona line at least half of whose units occur in the owner's turns.
 coverage   disclosed lines some fact matches (F1 of their units >= 0.5) / disclosed lines.
 oracle     the same coverage for the owner's own sentences kept verbatim, one fact each: what
            keeping the user's words could reach. `ratio` = coverage / oracle.
 facts      semantic records per dialogue.
 summaries  dialogues that got a summary (an episodic record), in the dialogue's language or none.
 mixed      records with an English word (a word of ENGLISH below the owner never typed).
 english    records written in English (half their words or more English, or opening with
            "User", "Said" or "Asked").
 pass       wall seconds of the consolidate command, median and p10-p90.

The rules were tuned on the first 30 dialogues of each language (--offset 0); dialogues 100-129
(--offset 100) are the held-out slice, scored once.

Usage: scripts/bench xpersona [--langs fr,zh] [--limit 30] [--offset 0] [--model qwen]
       python3 scripts/bench-xpersona.py --bin B --model M.gguf --set tests/data/sessions-es-de-pt
           --langs es,de,pt --limit 8   (the chats we wrote in Spanish, German and Portuguese)
       python3 scripts/bench-xpersona.py --bin target/release/localm --model M.gguf [--sample F]
--sample FILE writes, per language, up to 50 facts drawn with a fixed seed, with their dialogue's
persona, for precision by hand.
"""
import argparse
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
SET = os.path.join(ROOT, "tests", "data", "xpersona")
LANGS = ["fr", "it", "id", "zh", "ja", "ko"]
CJK = {"zh", "ja", "ko"}
START = datetime(2026, 11, 2, 10, 0, 0, tzinfo=timezone.utc)

FUNCTION_WORDS = {
    "fr": set("le la les l un une des de du d et à a en est je j tu il elle on nous vous ils elles que qu qui "
              "ne n pas pour sur dans avec ce c ça cela mon ma mes ton ta tes son sa ses au aux ai as suis es "
              "sont y me m te t se s mais ou très plus oui non bien aussi être avoir fait faire".split()),
    "it": set("il lo la l i gli le un una uno di d da in con su per e è ho hai ha sono sei siamo che non mi "
              "ti si ci mio mia miei tuo tua suo sua a al allo alla ai del della dei delle nel nella molto "
              "anche ma o sì no io tu lui lei noi voi loro questo questa".split()),
    "es": set("el la los las lo un una unos unas de del a al en y e o u que qu no sí se me te le nos os les "
              "mi mis tu tus su sus yo tú él ella es son soy eres está estoy estás están muy pero con por para "
              "también ya como más hay ser estar tengo tiene".split()),
    "de": set("der die das den dem des ein eine einen einem einer und oder aber in im am an auf mit von zu zum "
              "zur für ist bin bist sind war ich du er sie es wir ihr mein meine meinen mir mich dich dir nicht "
              "kein keine ja nein auch sehr so noch schon habe hast hat".split()),
    "pt": set("o a os as um uma uns umas de do da dos das em no na nos nas e ou que não sim se me te lhe eu tu "
              "ele ela é sou és são está estou muito mas com por para também já como mais meu minha meus "
              "minhas tenho tem ao à".split()),
    "id": set("saya aku kamu anda dia kami kita mereka yang dan di ke dari ini itu untuk dengan ada tidak "
              "juga apa adalah akan sangat ya tapi atau sudah bisa jadi punya lebih suka".split()),
    "en": set("the a an and or but in on at to of for with from is am are was were be i me my you your he she "
              "it we they them their this that so very too not no yes do does did have has had just really".split()),
    "nl": set("de het een en of maar in op aan met van voor naar bij is ben bent zijn was ik jij je hij zij "
              "ze we wij mijn me mij niet geen ja nee ook heel zo nog al heb hebt heeft dat die dit".split()),
}
ENGLISH = set("user user's said asked they them their the is are has have and about how likes loves "
              "works lives named with who what my i i'm you your was to of in on for".split())


def units(text, lang):
    if lang in CJK:
        letters = [c for c in text if c.isalnum()]
        return {a + b for a, b in zip(letters, letters[1:])}
    words = re.findall(r"\w+", text.lower())
    return {w[:5] for w in words if w not in FUNCTION_WORDS[lang]}


def f1(a, b):
    if not a or not b:
        return 0.0
    common = len(a & b)
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def sentences(text):
    parts = re.split(r"(?<=[.!?。！？…])\s*|\n", text)
    return [p.strip() for p in parts if p and any(c.isalnum() for c in p)]


def load(lang, limit, offset, where=SET):
    with open(os.path.join(where, f"{lang}_valid.json"), encoding="utf-8") as f:
        dialogues = json.load(f)[offset:offset + limit]
    out = []
    for i, d in enumerate(dialogues):
        owner = [u for _, u in d["dialogue"]]
        owner_units = set().union(*(units(u, lang) for u in owner)) if owner else set()
        lines = []
        for line in d["persona"]:
            u = units(line, lang)
            if u:
                lines.append({"line": line, "units": u,
                              "disclosed": len(u & owner_units) * 2 >= len(u)})
        i += offset
        out.append({"index": i, "id": f"xpersona-{lang}-{i:03d}", "dialogue": d["dialogue"],
                    "persona": d["persona"], "owner": owner, "owner_words": set(
                        w.lower() for u in owner for w in re.findall(r"[\w']+", u)), "lines": lines})
    return out


def run(bin_, args, env, timeout):
    t = time.monotonic()
    p = subprocess.run([bin_] + args, env=env, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t


def setup(bin_, data, model):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALM_") and k != "RUST_LOG"}
    env.update(LOCALM_DATA_DIR=data, LOCALM_MODE="log")
    for s in (["plugin", "install", "memory"], ["settings", "set", "mode", "log"]):
        p, _ = run(bin_, s, env, 120)
        if p.returncode != 0:
            sys.exit(f"`localm {' '.join(s)}` failed: {p.stderr.strip()[:300]}")
    path = os.path.join(data, "settings.json")
    settings = json.load(open(path, encoding="utf-8"))
    settings["llm_model"] = os.path.abspath(model)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=2)
    return env


def play(lang, dialogues, a):
    parent = tempfile.mkdtemp(prefix=f"localm-xpersona-{lang}-")
    try:
        for d in dialogues:
            data = os.path.join(parent, d["id"])
            os.makedirs(os.path.join(data, "sessions"))
            env = setup(a.bin, data, a.model)
            lines, k = [], 0
            for other, owner in d["dialogue"]:
                for role, text in (("assistant", other), ("user", owner)):
                    ts = (START + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
                    lines.append(json.dumps({"ts": ts, "role": role, "content": text}, ensure_ascii=False))
                    k += 1
            log = os.path.join(data, "sessions", d["id"] + ".jsonl")
            with open(log, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            old = time.time() - 3600
            os.utime(log, (old, old))
            p, wall = run(a.bin, ["memory", "consolidate", "--json"], env, 900)
            if p.returncode != 0:
                sys.exit(f"{d['id']}: consolidate failed ({p.returncode}): {p.stderr.strip()[:300]}")
            lp, _ = run(a.bin, ["memory", "list", "--json"], env, 120)
            d["records"] = json.loads(lp.stdout)["records"]
            d["wall"] = wall
            shutil.rmtree(data, ignore_errors=True)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def english_words(text, d):
    return [w for w in re.findall(r"[\w']+", text.lower()) if w in ENGLISH and w not in d["owner_words"]]


def written_in_english(text):
    words = re.findall(r"[\w']+", text.lower())
    opens = re.match(r"\s*(User|Said|Asked)\b", text)
    return bool(opens) or (words and sum(w in ENGLISH for w in words) * 2 >= len(words))


def covered(lines, texts, lang):
    fact_units = [units(t, lang) for t in texts]
    return sum(1 for x in lines if x["disclosed"] and any(f1(x["units"], u) >= 0.5 for u in fact_units))


def score(lang, dialogues):
    disclosed = cov = oracle = facts = mixed = english = records = summaries = 0
    for d in dialogues:
        texts = [r["text"] for r in d["records"] if r["kind"] == "semantic"]
        disclosed += sum(1 for x in d["lines"] if x["disclosed"])
        cov += covered(d["lines"], texts, lang)
        oracle += covered(d["lines"], [s for u in d["owner"] for s in sentences(u)], lang)
        facts += len(texts)
        summaries += any(r["kind"] == "episodic" for r in d["records"])
        for r in d["records"]:
            records += 1
            mixed += bool(english_words(r["text"], d))
            english += bool(written_in_english(r["text"]))
    walls = sorted(d["wall"] for d in dialogues)
    q = statistics.quantiles(walls, n=10) if len(walls) > 1 else [walls[0]] * 9
    c, o = cov / max(disclosed, 1), oracle / max(disclosed, 1)
    return {"lang": lang, "dialogues": len(dialogues), "facts_per_dialogue": facts / len(dialogues),
            "disclosed": disclosed, "coverage": c, "oracle": o, "ratio": c / o if o else 0.0,
            "records": records, "mixed": mixed, "english": english, "summaries": summaries,
            "pass_median_s": statistics.median(walls), "pass_p10_s": q[0], "pass_p90_s": q[-1]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--embed", help="accepted for scripts/bench's sake; unused")
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--limit", type=int, default=30, help="dialogues per language (default 30)")
    ap.add_argument("--offset", type=int, default=0,
                    help="skip this many dialogues first (0: the tuning slice; 100: the held-out slice, "
                         "dialogues 100-129, scored once)")
    ap.add_argument("--sample", help="write up to 50 facts per language here, for precision by hand")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--set", default=SET,
                    help="a folder of LANG_valid.json files in XPersona's shape (default: tests/data/xpersona; "
                         "tests/data/sessions-es-de-pt holds Spanish, German and Portuguese)")
    ap.add_argument("--summaries", help="write every summary with its dialogue's owner turns here, "
                                        "to read by hand")
    a = ap.parse_args()
    rows, sample, summaries = [], {}, {}
    print(f"{'lang':4} {'dlg':>3} {'facts/dlg':>9} {'disclosed':>9} {'coverage':>8} {'oracle':>6} "
          f"{'ratio':>5} {'records':>7} {'mixed':>5} {'english':>7} {'summaries':>9} {'pass s (p10-p90)':>18}")
    for lang in a.langs.split(","):
        dialogues = load(lang, a.limit, a.offset, a.set)
        play(lang, dialogues, a)
        r = score(lang, dialogues)
        rows.append(r)
        print(f"{lang:4} {r['dialogues']:3} {r['facts_per_dialogue']:9.2f} {r['disclosed']:9} "
              f"{r['coverage']:8.3f} {r['oracle']:6.3f} {r['ratio']:5.2f} {r['records']:7} "
              f"{r['mixed']:5} {r['english']:7} {r['summaries']:9} {r['pass_median_s']:7.2f} ({r['pass_p10_s']:.2f}-"
              f"{r['pass_p90_s']:.2f})", flush=True)
        facts = [(d["index"], t["text"], d["persona"]) for d in dialogues for t in d["records"]
                 if t["kind"] == "semantic"]
        random.Random(f"localm-xpersona-{lang}").shuffle(facts)
        sample[lang] = [{"dialogue": i, "fact": t, "persona": p, "label": None} for i, t, p in facts[:50]]
        summaries[lang] = [{"dialogue": d["index"], "summary": t["text"], "owner": d["owner"]}
                           for d in dialogues for t in d["records"] if t["kind"] == "episodic"]
    if a.sample:
        with open(a.sample, "w", encoding="utf-8") as f:
            json.dump(sample, f, ensure_ascii=False, indent=1)
    if a.summaries:
        with open(a.summaries, "w", encoding="utf-8") as f:
            json.dump(summaries, f, ensure_ascii=False, indent=1)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
