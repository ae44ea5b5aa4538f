"""The memory page in a real headless Chromium (Selenium), as a user clicks through it.

Run by tests/tests/page.rs with the daemons already started. Environment:
  LOCALM_BIN                the localm binary (`localm open --no-browser` gives each login link
                            just before it is used: a link lasts 60 s)
  LOCALM_DATA_DIR           the data dir of a daemon in log mode (settings.json is checked on disk)
  LOCALM_PRIVACY_DATA_DIR   the data dir of a daemon in privacy mode, plugin not installed (only
                            the privacy scenario needs it)
  LOCALM_ARTIFACTS          folder for the screenshots
  LOCALM_CHROMIUM, LOCALM_CHROMEDRIVER  the browser and its driver [/usr/bin/chromium, /usr/bin/chromedriver]
Prints one "ok: <scenario>" line per scenario passed, and "session: <cookie>", "key: <page key>"
and "code: <code>" lines so the caller can check that no secret reached a daemon's log. Exits non-zero on the first failure.
"""

import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DATA = os.environ["LOCALM_DATA_DIR"]
PRIVACY_DATA = os.environ.get("LOCALM_PRIVACY_DATA_DIR", "")
ARTIFACTS = os.environ["LOCALM_ARTIFACTS"]


def login_url(data_dir):
    """A fresh one-time login link from `localm open --no-browser`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["LOCALM_DATA_DIR"] = data_dir
    out = subprocess.run([os.environ["LOCALM_BIN"], "open", "--no-browser"], env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    print(f"code: {out.split('code=')[1]}", flush=True)
    return out


LOGIN = login_url(DATA)
BASE = "{0.scheme}://{0.netloc}".format(urlsplit(LOGIN))


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("LOCALM_CHROMIUM", "/usr/bin/chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1100,900", "--no-first-run", "--disable-extensions"]:
        opts.add_argument(a)
    service = Service(executable_path=os.environ.get("LOCALM_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=opts, service=service)


d = browser()
wait = WebDriverWait(d, 30)


def by_id(i):
    return d.find_element(By.ID, i)


def text(i):
    return by_id(i).text


def until(what, f, timeout=30):
    try:
        return WebDriverWait(d, timeout, poll_frequency=0.1).until(lambda _: f())
    except Exception:
        shot("failed")
        raise AssertionError(f"timed out waiting for {what}; page says:\n{d.find_element(By.TAG_NAME, 'body').text}")


def shot(name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    d.save_screenshot(os.path.join(ARTIFACTS, f"{name}.png"))


def ready():
    until("the page to load", lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")


def settings_on_disk(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def ok(name):
    print(f"ok: {name}", flush=True)


def no_page_error():
    assert not by_id("page-error").is_displayed(), text("page-error")


def scenario_login():
    d.get(LOGIN)
    until("the redirect to /memory", lambda: d.current_url == BASE + "/memory")
    ready()
    no_page_error()
    session = d.get_cookie("localm_session")
    assert session and session["httpOnly"] and session["sameSite"] == "Strict", session
    print(f"session: {session['value']}", flush=True)
    # The page key came in the fragment, which the page moved to sessionStorage and dropped.
    key = d.execute_script("return sessionStorage.getItem('localm_page_key')")
    assert key and len(key) == 64 and key != session["value"], key
    assert "#" not in d.current_url, d.current_url
    print(f"key: {key}", flush=True)
    assert "beagle" in by_id("facts").get_attribute("value")
    # A new tab has the cookie but not the key: no data, and what to do.
    first = d.current_window_handle
    d.switch_to.new_window("tab")
    d.get(BASE + "/memory")
    ready()
    assert by_id("page-error").is_displayed(), "no key, no note"
    assert "localm open" in text("page-error"), text("page-error")
    assert "beagle" not in by_id("facts").get_attribute("value")
    assert "beagle" not in text("records")
    shot("no-key")
    d.close()
    d.switch_to.window(first)
    # The same link a second time is refused.
    d.get(LOGIN)
    until("the refusal page", lambda: "does not work" in d.find_element(By.TAG_NAME, "h1").text)
    assert "localm open" in d.find_element(By.TAG_NAME, "body").text
    d.get(BASE + "/memory")
    ready()
    ok("login")


def scenario_evidence():
    # The fact a pass distilled shows the words it came from, as text: the markup stays visible.
    row = until("the beehive fact", lambda: next((r for r in d.find_elements(By.CSS_SELECTOR, "#records tbody tr")
                                                  if "beehives" in r.text), None))
    why = row.find_element(By.CSS_SELECTOR, "td.fact .evidence")
    assert why.text == 'from your words: "I keep <b>two</b> beehives on my roof"', why.text
    assert why.get_attribute("title") == "session s0, line 3", why.get_attribute("title")
    assert not row.find_elements(By.TAG_NAME, "b"), "the quote went in as HTML"
    # A fact with no evidence has no such line.
    dog = next(r for r in d.find_elements(By.CSS_SELECTOR, "#records tbody tr") if "Biscuit" in r.text)
    assert not dog.find_elements(By.CSS_SELECTOR, ".evidence"), dog.text
    shot("evidence")
    ok("evidence")


def scenario_recall():
    q = by_id("recall-q")
    q.clear()
    q.send_keys("What breed is my dog?")
    by_id("recall-go").click()
    until("recalled facts", lambda: d.find_elements(By.CSS_SELECTOR, "#recall-result ol.recalled li"))
    items = d.find_elements(By.CSS_SELECTOR, "#recall-result ol.recalled li")
    assert "beagle" in items[0].text, items[0].text
    why = items[0].find_element(By.CLASS_NAME, "why").text
    assert "shares words" in why and "importance" in why and "recency" in why, why
    shot("recall")
    # A request for advice brings the standing constraint on it, and says so.
    q.clear()
    q.send_keys("Any dinner ideas for tonight?")
    by_id("recall-go").click()
    until("the constraint", lambda: "vegetarian" in text("recall-result"))
    items = d.find_elements(By.CSS_SELECTOR, "#recall-result ol.recalled li")
    assert "vegetarian" in items[0].text, items[0].text
    why = items[0].find_element(By.CLASS_NAME, "why").text
    assert "constraint: diet" in why, why
    shot("recall-constraint")
    q.clear()
    q.send_keys("Explain quantum chromodynamics lecture schedules")
    by_id("recall-go").click()
    until("why nothing was injected", lambda: d.find_elements(By.CSS_SELECTOR, "#recall-result p.none"))
    assert "Nothing would be injected" in text("recall-result"), text("recall-result")
    ok("recall")


def save_text(value):
    area = by_id("facts")
    d.execute_script("arguments[0].value = arguments[1];", area, value)
    by_id("save").click()


def scenario_save():
    before = by_id("facts").get_attribute("value")
    save_text(before + "\nPrefers green tea in the morning")
    until("the save", lambda: text("save-msg").startswith("Saved:"))
    assert "1 added" in text("save-msg"), text("save-msg")
    until("the new fact in the table", lambda: "Prefers green tea" in text("records"))
    # Too many lines: a clear 413 message, and the textarea keeps what was typed.
    big = "\n".join(f"Fact number {i} about something" for i in range(300))
    save_text(big)
    until("the 413 message", lambda: "Too much to save" in text("save-msg"))
    assert "error" in by_id("save-msg").get_attribute("class")
    assert by_id("facts").get_attribute("value") == big
    shot("save-413")
    d.refresh()
    ready()
    ok("save")


def scenario_corrections():
    until("two suggestions", lambda: len(d.find_elements(By.CSS_SELECTOR, "#corrections li")) >= 2)
    first = d.find_element(By.CSS_SELECTOR, '#corrections li[data-id="c0000001"]')
    assert first.find_element(By.TAG_NAME, "del").text == "Works at Acme"
    assert first.find_element(By.TAG_NAME, "ins").text == "Works at Initech"
    shot("corrections")
    first.find_element(By.CLASS_NAME, "apply").click()
    until("Applied", lambda: text("corrections-msg").startswith("Applied"))
    assert not d.find_elements(By.CSS_SELECTOR, '#corrections li[data-id="c0000001"]')
    d.find_element(By.CSS_SELECTOR, '#corrections li[data-id="c0000002"] .keep').click()
    until("Kept", lambda: text("corrections-msg").startswith("Kept as is"))
    assert not d.find_elements(By.CSS_SELECTOR, '#corrections li[data-id="c0000002"]')
    ok("corrections")


def toggle(key, data_dir):
    box = by_id(f"set-{key}")
    want = not box.is_selected()
    box.click()
    until(f"{key} saved", lambda: text("settings-msg") == f"Saved: {key} is {'on' if want else 'off'}.")
    on_disk = settings_on_disk(data_dir)
    assert on_disk.get(key) == want, (key, want, on_disk)
    return want


def scenario_settings():
    assert "Mode: log." in text("mode-about"), text("mode-about")
    assert "localm settings set mode" in text("mode-about")
    for key in ["memory_enabled", "memory_auto_consolidate"]:
        toggle(key, DATA)
        toggle(key, DATA)
    if not toggle("memory_recall_in_privacy", DATA):
        toggle("memory_recall_in_privacy", DATA)
    toggle("memory_recall_in_privacy_chat", DATA)
    toggle("memory_recall_in_privacy_chat", DATA)
    assert text("plugin-state") == "installed, enabled"
    ok("settings")


def scenario_synth():
    by_id("synth").click()
    until("the progress", lambda: "Synthesizing" in text("synth-progress"), timeout=10)
    shot("synth-running")
    # A pass already running (the note says so) delays ours: wait for the report or an error.
    until("the pass report", lambda: by_id("synth-result").is_displayed()
          or "error" in by_id("synth-msg").get_attribute("class"), timeout=240)
    assert by_id("synth-result").is_displayed(), text("synth-msg")
    assert "error" not in by_id("synth-msg").get_attribute("class"), text("synth-msg")
    report = text("synth-result")
    for heading in ["Added", "Updated", "Proposed corrections", "Skipped"]:
        assert heading in report, report
    no_page_error()
    d.execute_script("arguments[0].scrollIntoView()", by_id("synth-section"))
    shot("synth-done")
    ok("synth")


class Evil(http.server.BaseHTTPRequestHandler):
    """Another origin's page that tries to change memory with the user's cookie."""

    def do_GET(self):
        page = f"""<!doctype html><title>evil</title><script>
        (async () => {{
          try {{
            await fetch("{BASE}/api/memory/append", {{method: "POST", mode: "no-cors",
              credentials: "include", headers: {{"Content-Type": "text/plain"}},
              body: JSON.stringify({{text: "Planted by another page"}})}});
          }} catch (e) {{}}
          try {{
            await fetch("{BASE}/api/memory", {{method: "PUT", credentials: "include",
              headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({{text: "pwned"}})}});
          }} catch (e) {{}}
          document.title = "done";
        }})();
        </script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


def scenario_other_origin():
    # Threads: Chromium opens a spare connection it may never use, which would hold a
    # one-connection-at-a-time server (and the page) for a minute.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        d.get(f"http://127.0.0.1:{server.server_port}/")
        until("the other page's requests", lambda: d.title == "done")
        time.sleep(0.2)
    finally:
        server.shutdown()
    d.get(BASE + "/memory")
    ready()
    facts = by_id("facts").get_attribute("value")
    assert "Planted" not in facts and "pwned" not in facts, facts
    assert "beagle" in facts, facts
    ok("other-origin")


def scenario_layout():
    d.set_window_size(420, 900)
    d.refresh()
    ready()
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 420, f"the page is {width}px wide in a 420px window"
    shot("phone")
    d.set_window_size(1100, 900)
    d.refresh()
    ready()
    shot("laptop")
    ok("layout")


def scenario_privacy():
    PRIVACY_LOGIN = login_url(PRIVACY_DATA)
    d.get(PRIVACY_LOGIN)
    ready()
    base = "{0.scheme}://{0.netloc}".format(urlsplit(PRIVACY_LOGIN))
    assert d.current_url == base + "/memory"
    assert by_id("plugin-note").is_displayed(), "plugin off note"
    assert text("plugin-state") == "not installed"
    by_id("plugin-install").click()
    until("the plugin installed", lambda: text("plugin-state") == "installed, enabled")
    plugins = settings_on_disk(PRIVACY_DATA)["plugins"]["memory"]
    assert plugins == {"installed": True, "enabled": True}, plugins
    until("the facts", lambda: "Lives in Lisbon" in text("records"))
    assert "Mode: privacy." in text("mode-about"), text("mode-about")
    note = by_id("privacy-note")
    assert note.is_displayed() and "Privacy mode" in note.text, note.text
    for i in ["save", "synth"]:
        assert not by_id(i).is_enabled(), f"{i} is enabled in privacy mode"
    for b in d.find_elements(By.CSS_SELECTOR, "#corrections button"):
        assert not b.is_enabled()
    # Settings are still the user's to change in privacy mode.
    toggle("memory_recall_in_privacy", PRIVACY_DATA)
    shot("privacy")
    ok("privacy")


def localm(*args):
    """Run the localm binary on the log daemon's data dir (another process writing memory)."""
    env = dict(os.environ, LOCALM_DATA_DIR=DATA)
    return subprocess.run([os.environ["LOCALM_BIN"], *args], env=env, capture_output=True,
                          text=True, check=True).stdout


def facts_on_disk():
    return sorted(r["text"] for r in json.loads(localm("memory", "list", "--json"))["records"])


def api_append(text):
    """POST /api/memory/append with the bearer token, as a chat app's /remember does."""
    with open(os.path.join(DATA, "api-token")) as f:
        token = f.read().strip()
    req = urllib.request.Request(BASE + "/api/memory/append", data=json.dumps({"text": text}).encode(),
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as resp:
        assert resp.status == 201, resp.status


def scenario_race():
    # The tab is open on two facts; meanwhile other writers add two, and the user edits the text
    # the page loaded (drops one line, adds one). Save must not delete what it never showed.
    d.get(LOGIN)
    until("the redirect to /memory", lambda: d.current_url == BASE + "/memory")
    ready()
    no_page_error()
    assert by_id("facts").get_attribute("value") == "Owns a red bicycle\nLives in Porto"
    localm("memory", "add", "Rides to work on Tuesdays")
    api_append("Keeps a spare inner tube")
    edited = "Owns a red bicycle\nDrinks oolong"
    save_text(edited)
    until("the conflict", lambda: by_id("conflict").is_displayed())
    listed = text("conflict-list")
    assert "added: Rides to work on Tuesdays" in listed, listed
    assert "added: Keeps a spare inner tube" in listed, listed
    assert "Nothing was saved" in text("save-msg"), text("save-msg")
    assert by_id("facts").get_attribute("value") == edited, "the textarea keeps the user's text"
    assert facts_on_disk() == ["Keeps a spare inner tube", "Lives in Porto", "Owns a red bicycle",
                               "Rides to work on Tuesdays"], facts_on_disk()
    shot("save-conflict")
    # Merge: the user's text plus the new facts, then Save.
    by_id("merge").click()
    merged = by_id("facts").get_attribute("value")
    assert merged.split("\n") == ["Owns a red bicycle", "Drinks oolong", "Rides to work on Tuesdays",
                                  "Keeps a spare inner tube"], merged
    assert not by_id("conflict").is_displayed()
    by_id("save").click()
    until("the save", lambda: text("save-msg").startswith("Saved:"))
    assert "1 added" in text("save-msg") and "1 deleted" in text("save-msg"), text("save-msg")
    assert facts_on_disk() == ["Drinks oolong", "Keeps a spare inner tube", "Owns a red bicycle",
                               "Rides to work on Tuesdays"], facts_on_disk()
    # Reload instead: the text becomes memory as it is now, with what another writer added.
    localm("memory", "add", "Commutes by ferry in winter")
    save_text("Owns a red bicycle")
    until("the second conflict", lambda: by_id("conflict").is_displayed())
    assert "added: Commutes by ferry in winter" in text("conflict-list"), text("conflict-list")
    by_id("reload").click()
    until("the reload", lambda: "Commutes by ferry" in by_id("facts").get_attribute("value"))
    assert not by_id("conflict").is_displayed()
    assert len(facts_on_disk()) == 5, facts_on_disk()
    # An empty list asks first, naming how many facts it deletes; No saves nothing.
    save_text("")
    until("the question", lambda: _alert_text() is not None)
    question = _alert_text()
    assert "deletes all 5 facts" in question, question
    d.switch_to.alert.dismiss()
    until("nothing saved", lambda: text("save-msg") == "Nothing was saved.")
    assert len(facts_on_disk()) == 5, facts_on_disk()
    ok("race")


def _alert_text():
    try:
        return d.switch_to.alert.text
    except Exception:
        return None


SCENARIOS = {
    "race": scenario_race,
    "login": scenario_login,
    "evidence": scenario_evidence,
    "recall": scenario_recall,
    "save": scenario_save,
    "corrections": scenario_corrections,
    "settings": scenario_settings,
    "other-origin": scenario_other_origin,
    "layout": scenario_layout,
    "synth": scenario_synth,
    "privacy": scenario_privacy,
}

try:
    for name in sys.argv[1:]:
        t = time.time()
        SCENARIOS[name]()
        print(f"  {name}: {time.time() - t:.1f}s", flush=True)
finally:
    d.quit()
