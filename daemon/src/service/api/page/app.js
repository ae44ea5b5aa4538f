// The memory page: your facts, Synthesize now, suggested corrections, Try recall and the privacy
// settings, over the daemon's JSON API. Everything it shows from the API goes in as text
// (textContent), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
// `base` and `shown`: the store's generation and records the textarea was filled from. Save sends
// the base back, so a Save made before another write landed (a /remember, the CLI, a pass) is
// refused instead of deleting facts this page never showed.
const state = { writable: false, plugin: false, loaded: false, base: null, shown: [], pending: null };

// The page key: `localm open`'s login hands it over in the URL fragment (`/memory#k=KEY`, never
// sent to a server). It is kept in sessionStorage, which only this origin (scheme, host and port)
// can read, and sent with every API call: the session cookie alone, which browsers also send to
// other servers on 127.0.0.1, opens nothing.
const KEY_ITEM = "localm_page_key";
function takeKey() {
  const m = /^#k=([0-9a-f]+)$/.exec(location.hash);
  if (m) {
    try { sessionStorage.setItem(KEY_ITEM, m[1]); } catch (e) { /* storage off: key kept below */ }
    history.replaceState(null, "", location.pathname + location.search);
    return m[1];
  }
  try { return sessionStorage.getItem(KEY_ITEM); } catch (e) { return null; }
}
const pageKey = takeKey();

// One API call: { ok, status, data } (data is the parsed JSON answer, or null).
async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { "X-Localm-Key": pageKey || "" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    return { ok: false, status: 0, data: null, message: "The daemon did not answer (is it still running?)." };
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  const message = data && data.error ? data.error.message : "";
  return { ok: resp.ok, status: resp.status, data, code: data && data.error ? data.error.code : "", message };
}

// An element with text (never HTML) and optional class.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function say(id, text, isError) {
  const e = $(id);
  e.textContent = text;
  e.classList.toggle("error", !!isError);
}

// A clear sentence for an error answer.
function explain(r, what) {
  switch (r.status) {
    case 0: return r.message;
    case 401:
      if (r.code === "page_key") return "This tab has no key for the page: run `localm open` again.";
      return "You are logged out: run `localm open` in a terminal to log in again.";
    case 403:
      if (r.code === "privacy") return `Privacy mode: ${what} is off (memory writes nothing). ${r.message}`;
      return `Refused: ${r.message}`;
    case 409:
      if (r.code === "stale") return `Memory changed since this page loaded it; nothing was saved. (${r.message})`;
      return `Another localm process is writing memory right now; nothing was changed. Try again in a moment. (${r.message})`;
    case 413: return `Too much to save: ${r.message}. Nothing was changed; your text is still here.`;
    default: return `${what} failed (${r.status}): ${r.message || "no details"}`;
  }
}

function when(ts) {
  if (!ts) return "never";
  const d = new Date(ts);
  return isNaN(d) ? String(ts) : d.toLocaleString();
}

// ---- settings -------------------------------------------------------------------------------

const MODES = {
  privacy: "Privacy: memory writes nothing and recalls nothing (unless you allow read-only recall below). Nothing from a past session reaches the model.",
  log: "Log: chats are logged on this machine, memory recalls facts and learns new ones.",
  full: "Full: chats are logged on this machine, memory recalls facts and learns new ones.",
};

function renderSettings(s) {
  $("mode-line").textContent = `Mode: ${s.mode}`;
  const about = $("mode-about");
  about.textContent = "";
  about.append(el("strong", `Mode: ${s.mode}. `), MODES[s.mode] || "");
  about.append(" Change it in a terminal: ", el("code", "localm settings set mode log"),
    " (privacy, log or full).");
  if (s.mode !== s.mode_in_file) {
    about.append(` settings.json says ${s.mode_in_file}; --mode or LOCALM_MODE overrides it here.`);
  }
  for (const key of ["memory_enabled", "memory_auto_consolidate", "memory_recall_in_privacy", "memory_recall_in_privacy_chat"]) {
    $(`set-${key}`).checked = !!s[key];
  }
  $("set-memory_recall_in_privacy_chat").disabled = !s.memory_recall_in_privacy;
  const p = (s.plugins || []).find((x) => x.name === "memory") || { installed: false, enabled: false };
  $("plugin-state").textContent = p.enabled ? "installed, enabled" : p.installed ? "installed, not enabled" : "not installed";
  $("plugin-install").hidden = p.installed;
  $("plugin-enable").hidden = !p.installed || p.enabled;
  state.plugin = p.enabled;
}

async function changeSetting(key, on) {
  const r = await api("PATCH", "/api/settings", { [key]: on });
  if (!r.ok) {
    say("settings-msg", explain(r, "Changing a setting"), true);
    await loadSettings();
    return;
  }
  renderSettings(r.data);
  say("settings-msg", `Saved: ${key} is ${on ? "on" : "off"}.`);
}

async function plugin(action) {
  const r = await api("POST", `/api/plugins/memory/${action}`);
  if (!r.ok) { say("settings-msg", explain(r, "The plugin change"), true); return; }
  renderSettings(r.data);
  say("settings-msg", action === "install" ? "The memory plugin is installed and enabled." : "The memory plugin is enabled.");
  await loadMemory(true);
}

async function loadSettings() {
  const r = await api("GET", "/api/settings");
  if (!r.ok) { pageError(explain(r, "Reading the settings")); return; }
  renderSettings(r.data);
}

// ---- facts --------------------------------------------------------------------------------

function renderRecords(records) {
  const body = $("records").querySelector("tbody");
  body.textContent = "";
  if (records.length === 0) {
    const tr = el("tr");
    const td = el("td", "No facts yet.", "muted");
    td.colSpan = 5;
    tr.append(td);
    body.append(tr);
  }
  for (const r of records) {
    const tr = el("tr");
    const fact = el("td", r.text, "fact");
    fact.append(...evidence(r.provenance));
    // What recall tells the chat model beside the fact: the day it was last said.
    fact.append(el("div", `last said ${(r.said_at || r.updated_at).slice(0, 10)}`, "why"));
    // Said to hold for a time: recalled until then, then archived (restorable).
    if (r.valid_until) fact.append(el("div", `holds until ${r.valid_until.slice(0, 10)}`, "why"));
    tr.append(fact, el("td", r.kind), el("td", r.source),
      el("td", Number(r.importance).toFixed(2)), el("td", when(r.last_recalled_at)));
    body.append(tr);
  }
}

// Why localm believes a fact: one line per clause of yours it was written from, the session
// and line in its tooltip.
function evidence(provenance) {
  return ((provenance && provenance.evidence) || []).map((e) => {
    const line = el("div", `from your words: "${e.quote}"`, "why evidence");
    line.title = `session ${e.session}, line ${e.line}`;
    return line;
  });
}

function setWritable(writable, plugin) {
  state.writable = writable && plugin;
  for (const id of ["save", "synth"]) $(id).disabled = !state.writable;
  for (const b of document.querySelectorAll("#corrections button")) b.disabled = !state.writable;
  $("facts").readOnly = !state.writable;
  const note = $("privacy-note");
  note.hidden = writable || !plugin;
  note.textContent = "";
  if (!writable && plugin) {
    note.append("Privacy mode: memory writes nothing, so Save, Synthesize now, Apply and Keep as is are off. Switch with ",
      el("code", "localm settings set mode log"), ".");
  }
}

async function loadMemory(fillText) {
  const r = await api("GET", "/api/memory");
  const note = $("plugin-note");
  if (r.status === 404 && r.code === "plugin_disabled") {
    note.hidden = false;
    note.textContent = "The memory plugin is off: turn it on under Settings › Privacy & data below.";
    renderRecords([]);
    setWritable(false, false);
    return;
  }
  note.hidden = true;
  if (!r.ok) { pageError(explain(r, "Reading memory")); return; }
  renderRecords(r.data.records);
  if (fillText || !state.loaded) {
    $("facts").value = r.data.records.map((x) => x.text).join("\n");
    state.loaded = true;
    state.base = r.data.generation;
    state.shown = r.data.records;
    hideConflict();
  }
  setWritable(r.data.writable, true);
  await loadCorrections();
}

// A fact's key for matching lines, close to the store's: case and spacing ignored.
function key(text) {
  return String(text).trim().replace(/\s+/g, " ").toLowerCase();
}

function lines(text) {
  return text.split("\n").filter((l) => l.trim() !== "");
}

// What other writers did since the textarea was filled: facts added, edited and removed.
function changesSince(shown, now) {
  const before = new Map(shown.map((r) => [r.id, r]));
  const after = new Map(now.map((r) => [r.id, r]));
  const added = now.filter((r) => !before.has(r.id));
  const edited = now.filter((r) => before.has(r.id) && before.get(r.id).text !== r.text)
    .map((r) => ({ from: before.get(r.id).text, to: r.text }));
  const removed = shown.filter((r) => !after.has(r.id));
  return { added, edited, removed };
}

async function save() {
  const text = $("facts").value;
  const count = lines(text).length;
  if (count === 0 && state.shown.length > 0) {
    const n = state.shown.length;
    if (!window.confirm(`Save an empty list? This deletes all ${n} fact${n === 1 ? "" : "s"} (they go to the forgotten archive, where \`localm memory restore\` can bring them back).`)) {
      say("save-msg", "Nothing was saved.");
      return;
    }
  }
  $("save").disabled = true;
  say("save-msg", "Saving…");
  // A write that changed no fact (a pass moving its bookmarks) also moves the generation: then
  // the same text is sent again on the new one, a few times at most.
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await api("PUT", "/api/memory", { text, base: state.base });
    if (r.ok) {
      $("save").disabled = !state.writable;
      say("save-msg", `Saved: ${r.data.kept} kept, ${r.data.added.length} added, ${r.data.deleted.length} deleted.`);
      await loadMemory(true);
      return;
    }
    if (r.status !== 409 || r.code !== "stale") {
      $("save").disabled = !state.writable;
      say("save-msg", explain(r, "Saving"), true);
      return;
    }
    const now = await api("GET", "/api/memory");
    if (!now.ok) { $("save").disabled = !state.writable; say("save-msg", explain(now, "Reading memory"), true); return; }
    const c = changesSince(state.shown, now.data.records);
    if (c.added.length || c.edited.length || c.removed.length) {
      $("save").disabled = !state.writable;
      showConflict(c, now.data);
      return;
    }
    state.base = now.data.generation;
    state.shown = now.data.records;
  }
  $("save").disabled = !state.writable;
  say("save-msg", "Memory keeps changing while this page saves; nothing was saved. Try again in a moment.", true);
}

// Memory changed elsewhere since the page loaded it: keep the user's text, say what changed, and
// offer to merge it in or to reload.
function showConflict(c, now) {
  state.pending = { changes: c, now };
  renderRecords(now.records);
  say("save-msg", "Nothing was saved: memory changed since this page loaded it. Your text is still here.", true);
  const n = c.added.length + c.edited.length + c.removed.length;
  $("conflict-title").textContent = `Changed elsewhere since this page loaded (${n}):`;
  const ul = $("conflict-list");
  ul.textContent = "";
  for (const r of c.added) ul.append(el("li", `added: ${r.text}`, "added"));
  for (const e of c.edited) ul.append(el("li", `edited: ${e.from} → ${e.to}`, "edited"));
  for (const r of c.removed) ul.append(el("li", `removed: ${r.text}`, "removed"));
  $("conflict").hidden = false;
}

function hideConflict() {
  state.pending = null;
  $("conflict").hidden = true;
}

// Your text, with what changed elsewhere: added facts appended, an edited fact's line changed to
// its new text, a removed fact's line dropped (lines you changed yourself are left as you wrote
// them). The base becomes the store as it is now; Save then sends the merge.
function merge() {
  const p = state.pending;
  if (!p) return;
  let mine = $("facts").value.split("\n");
  const edits = new Map(p.changes.edited.map((e) => [key(e.from), e.to]));
  const removed = new Set(p.changes.removed.map((r) => key(r.text)));
  mine = mine.filter((l) => !removed.has(key(l))).map((l) => edits.has(key(l)) ? edits.get(key(l)) : l);
  const have = new Set(mine.map(key));
  const extra = p.changes.added.map((r) => r.text).concat(p.changes.edited.map((e) => e.to))
    .filter((t) => !have.has(key(t)));
  const merged = mine.join("\n").replace(/\s+$/, "");
  $("facts").value = extra.length ? `${merged}${merged ? "\n" : ""}${extra.join("\n")}` : merged;
  state.base = p.now.generation;
  state.shown = p.now.records;
  hideConflict();
  say("save-msg", "Merged what changed elsewhere into your text: check it, then Save.");
}

async function reload() {
  hideConflict();
  await loadMemory(true);
  say("save-msg", "Reloaded: the text is memory as it is now.");
}

// ---- synthesize ---------------------------------------------------------------------------

function list(title, items, line) {
  const box = el("div");
  box.append(el("h3", `${title} (${items.length})`));
  const ul = el("ul");
  for (const it of items) ul.append(line(it));
  if (items.length === 0) ul.append(el("li", "none", "muted"));
  box.append(ul);
  return box;
}

function renderReport(rep) {
  const out = $("synth-result");
  out.textContent = "";
  out.hidden = false;
  if (rep.status === "skipped") {
    out.append(el("p", `Skipped: ${rep.reason || "nothing to do"}.`));
    return;
  }
  if (rep.status === "error") {
    out.append(el("p", `The pass could not run: ${rep.reason || "no details"}. Nothing was changed.`, "error"));
    return;
  }
  out.append(el("p", `Done in ${(rep.duration_ms / 1000).toFixed(1)} s; read ${rep.sessions_read} session(s).`));
  const text = (t) => el("li", t.text);
  out.append(list("Added", rep.added || [], text));
  out.append(list("Updated", rep.updated || [], text));
  out.append(list("Proposed corrections", rep.proposed || [], text));
  out.append(list("Skipped", rep.skipped || [], (s) => {
    const li = el("li", s.text);
    li.append(" ", el("span", `— ${s.why}`, "why"));
    return li;
  }));
  if ((rep.episodic || []).length) out.append(list("Session summaries", rep.episodic, text));
}

async function synthesize() {
  $("synth").disabled = true;
  say("synth-msg", "");
  $("synth-result").hidden = true;
  const health = await api("GET", "/api/health");
  if (health.ok && health.data.pass && health.data.pass.running) {
    say("synth-msg", "A pass is already running; this one starts when it ends.");
  }
  const started = Date.now();
  const tick = () => { $("synth-elapsed").textContent = `Synthesizing… ${Math.floor((Date.now() - started) / 1000)} s`; };
  tick();
  $("synth-progress").hidden = false;
  const timer = setInterval(tick, 500);
  const r = await api("POST", "/api/memory/consolidate");
  clearInterval(timer);
  $("synth-progress").hidden = true;
  $("synth").disabled = !state.writable;
  if (!r.ok) {
    let text = explain(r, "Synthesize now");
    if (/model/i.test(r.message) && /setup-model|no language model/i.test(r.message)) {
      text = "No language model is installed: run `localm setup-model`, then try again.";
    }
    say("synth-msg", text, true);
    return;
  }
  say("synth-msg", "");
  renderReport(r.data);
  await loadMemory(true);
}

// ---- corrections --------------------------------------------------------------------------

async function loadCorrections() {
  const r = await api("GET", "/api/memory/corrections");
  const ul = $("corrections");
  ul.textContent = "";
  if (!r.ok) { say("corrections-msg", explain(r, "Reading the suggestions"), true); return; }
  const items = r.data.corrections || [];
  say("corrections-msg", items.length ? "" : "No suggestions.");
  for (const c of items) {
    const li = el("li");
    li.dataset.id = c.id;
    const change = el("p");
    change.append(el("del", c.old_text), " → ");
    change.append(c.op === "delete" ? el("ins", "(delete this fact)") : el("ins", c.new_text || ""));
    li.append(change, el("p", `confidence ${Number(c.confidence).toFixed(2)}`, "why"));
    li.append(...evidence(c.provenance));
    const actions = el("div", null, "actions");
    const apply = el("button", "Apply");
    apply.type = "button";
    apply.className = "apply";
    const keep = el("button", "Keep as is", "secondary keep");
    keep.type = "button";
    apply.disabled = keep.disabled = !state.writable;
    apply.addEventListener("click", () => resolve(c.id, "accept"));
    keep.addEventListener("click", () => resolve(c.id, "reject"));
    actions.append(apply, keep);
    li.append(actions);
    ul.append(li);
  }
}

async function resolve(id, how) {
  const r = await api("POST", `/api/memory/corrections/${encodeURIComponent(id)}/${how}`);
  if (!r.ok) { say("corrections-msg", explain(r, how === "accept" ? "Apply" : "Keep as is"), true); return; }
  await loadMemory(true);
  say("corrections-msg", how === "accept" ? "Applied; the old text is kept in the forgotten archive." : "Kept as is; it will not be suggested again.");
}

// ---- try recall ---------------------------------------------------------------------------

const GATES = {
  shared_word: "shares words with your message",
  similar: "similar in meaning",
  fallback: "a fact about you, for a question about you",
  constraint: "a standing constraint on the advice you asked for",
};

function reasons(c) {
  const parts = [GATES[c.gate] || c.gate];
  if (c.constraint) parts.push(`constraint: ${c.constraint}`);
  parts.push(`shared words ${(c.share * 100).toFixed(0)}%`);
  if (c.cosine !== undefined && c.cosine !== null) parts.push(`similarity ${c.cosine.toFixed(2)}`);
  parts.push(`recency ${c.recency.toFixed(2)}`, `importance ${c.importance.toFixed(2)}`, `score ${c.score.toFixed(2)}`);
  return parts.join(" · ");
}

async function tryRecall(ev) {
  ev.preventDefault();
  const out = $("recall-result");
  out.textContent = "";
  const q = $("recall-q").value.trim();
  if (!q) { out.append(el("p", "Type a message first.", "muted")); return; }
  const r = await api("POST", "/api/memory/recall", {
    messages: [{ role: "user", content: q }], explain: true, preview: true,
  });
  if (!r.ok) { out.append(el("p", explain(r, "Try recall"), "error")); return; }
  const a = r.data;
  if (a.skipped) {
    out.append(el("p", `Nothing would be injected: ${a.skipped}.`, "none"));
    return;
  }
  const chosen = (a.candidates || []).filter((c) => c.chosen);
  if (chosen.length === 0) {
    const p = el("p", "Nothing would be injected: no fact is related enough to this message.", "none");
    out.append(p);
    if (a.gate) out.append(el("p", `The gate (${a.gate.name}) needed relevance ${a.gate.threshold.toFixed(2)}; the best fact had ${bestRelevance(a)}.`, "why"));
  } else {
    out.append(el("h3", `${chosen.length} fact(s) would be injected, in this order:`));
    const ol = el("ol", null, "recalled");
    for (const c of chosen) {
      const li = el("li", c.text);
      li.append(el("div", `last said ${String(c.said_at).slice(0, 10)} · ${reasons(c)}`, "why"));
      ol.append(li);
    }
    out.append(ol);
  }
  if (a.degrade) out.append(el("p", `Recall fell back to word matching: ${a.degrade}.`, "why"));
}

function bestRelevance(a) {
  const c = (a.candidates || [])[0];
  return c ? c.relevance.toFixed(2) : "none (no facts)";
}

// ---- start --------------------------------------------------------------------------------

function pageError(text) {
  const e = $("page-error");
  e.hidden = false;
  e.textContent = text;
}

document.addEventListener("DOMContentLoaded", async () => {
  $("save").addEventListener("click", save);
  $("merge").addEventListener("click", merge);
  $("reload").addEventListener("click", reload);
  $("synth").addEventListener("click", synthesize);
  $("recall-form").addEventListener("submit", tryRecall);
  $("plugin-install").addEventListener("click", () => plugin("install"));
  $("plugin-enable").addEventListener("click", () => plugin("enable"));
  for (const key of ["memory_enabled", "memory_auto_consolidate", "memory_recall_in_privacy", "memory_recall_in_privacy_chat"]) {
    $(`set-${key}`).addEventListener("change", (e) => changeSetting(key, e.target.checked));
  }
  if (!pageKey) {
    pageError("Run `localm open` again: it opens this page with the key it needs (a page opened another way shows no data).");
    $("mode-line").textContent = "";
    document.body.dataset.ready = "1";
    return;
  }
  await loadSettings();
  await loadMemory(true);
  document.body.dataset.ready = "1";
});
