#!/usr/bin/python3
"""The dashboard in a real browser (issue 14, docs/ADMIN_API.md "Dashboard").

Plays the demo world (`gatehouse demo --serve-after`: the simulator and gatehouse keep running
after the report), makes one PR's work item dead for real (the simulator answers 500 to every
read of that PR, so its passes fail until --max-attempts is spent), then drives Debian's
headless Chromium through chromedriver (Selenium, python3-selenium) against the admin
listener:

  1. an unauthenticated visit lands on the login form; a wrong token is refused; the right one
     logs in (an HttpOnly cookie);
  2. the overview's funnel shows exactly the numbers GET /api/v1/status reports, and the dead
     item is listed;
  3. the PR search opens that PR's timeline: the work item is dead, the audit lines and ledger
     actions are those of GET /api/v1/prs/O/R/N/timeline, verdicts show their blockers;
  4. with the fault lifted, the dead item's Re-arm button re-arms it: it leaves the dead list,
     on the page and in the API, and its next pass completes;
  5. a reviewer is paused and resumed from the reviewers page;
  6. the Queues page shows the demo's merge queue (acme/mono) with the entries GET
     /api/v1/queues lists.

Every page is saved as a PNG under --out (CTest passes build/test-output/dashboard/). Waits are
for conditions (an element, an API state) with generous deadlines, never fixed sleeps.
Exit status 0 when every check holds.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

FUNNEL = ["received", "recovered", "routed", "ignored", "duplicate", "rejected", "dead",
          "in_flight", "unresolved"]
PR_KEY = re.compile(r"^([^/#]+)/([^/#]+)#([0-9]+)$")
DEMO_STDOUT = []


def fail(message):
    print("dashboard_browser_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check(ok, message):
    if not ok:
        fail(message)
    print("dashboard_browser_test: ok: " + message)


def wait_for(what, predicate, seconds=90.0):
    """Polls `predicate` until it returns something truthy; fails naming `what` after the
    deadline. The deadline only bounds a broken run; a passing run waits for the condition."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            fail("timed out waiting for " + what)
        time.sleep(0.2)


class Http:
    def __init__(self, base, token=None):
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                return r.status, (json.loads(text) if text.strip() else None)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def get(self, path):
        status, doc = self.call("GET", path)
        if status != 200:
            fail("GET %s answered %s: %s" % (path, status, doc))
        return doc


def start_demo(gatehouse, sim, workdir):
    cmd = [gatehouse, "demo", "--dir", workdir, "--prs", "3", "--max-attempts", "2",
           "--serve-after", "--serve-log-level", "debug", "--sim", sim]
    print("dashboard_browser_test: " + " ".join(cmd))
    stderr = open(os.path.join(workdir, "demo.stderr"), "w")
    demo = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)
    verdict, serving = None, None
    for line in demo.stdout:
        sys.stdout.write(line)
        DEMO_STDOUT.append(line)
        if line.startswith("verdict: "):
            verdict = line.strip()
        if line.startswith("gatehouse demo: serving "):
            serving = dict(kv.split("=", 1) for kv in line.split()[3:])
            break
    if serving is None:
        demo.wait()
        fail("the demo ended (exit %s) without serving; see %s/demo.stderr"
             % (demo.returncode, workdir))
    return demo, verdict, serving


def open_pr(sim):
    """A new pull request in the simulator's first repository, as (owner, repo, number)."""
    state = sim.get("/_sim/state")
    if not state["repos"]:
        fail("the demo world has no repository")
    owner, repo = state["repos"][0]["owner"]["login"], state["repos"][0]["name"]
    status, pr = sim.call("POST", "/_sim/repos/%s/%s/pulls" % (owner, repo),
                          {"title": "Left for the browser test", "author": "dana"})
    if status != 201:
        fail("the simulator did not open a pull request: %s %s" % (status, pr))
    return owner, repo, pr["number"]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000"]:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text.strip()


def check_metrics(dashboard, token):
    """The live server's /metrics, through Prometheus's own parser (python3-prometheus-client):
    every family docs/METRICS.md names for a server that has played a world."""
    from prometheus_client.parser import text_string_to_metric_families
    req = urllib.request.Request(dashboard + "/metrics")
    req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    # The parser names counters without their _total suffix.
    for name in ("gatehouse_webhook_requests", "gatehouse_inbox_deliveries", "gatehouse_routing_lag_seconds",
                 "gatehouse_work_items", "gatehouse_work_oldest_pending_age_seconds",
                 "gatehouse_passes_started", "gatehouse_passes", "gatehouse_pass_failures",
                 "gatehouse_pass_duration_seconds",
                 "gatehouse_signal_to_pass_start_seconds", "gatehouse_signals_per_pass",
                 "gatehouse_ledger_actions", "gatehouse_review_runs", "gatehouse_review_requests",
                 "gatehouse_github_requests", "gatehouse_github_rate_limit_remaining",
                 "gatehouse_store_transaction_duration_seconds",
                 "process_resident_memory_bytes", "process_open_fds"):
        check(name in families and families[name].samples, "/metrics has %s" % name)
    check("gatehouse_github_rate_limit_waits" in families,
          "/metrics has gatehouse_github_rate_limit_waits_total (a series once a call waited)")
    merges = [s for s in families["gatehouse_ledger_actions"].samples
              if s.labels.get("kind") == "merge" and s.labels.get("state") == "done"]
    check(merges and merges[0].value >= 1, "the ledger's done merges are counted (%s)"
          % (merges[0].value if merges else 0))
    gets = [s for s in families["gatehouse_github_requests"].samples
            if s.labels.get("endpoint") == "/repos/{owner}/{repo}/pulls/{n}"]
    check(gets, "GitHub requests are counted by endpoint template")


def secrets_of(workdir):
    """Every secret the demo used: the webhook secret, the admin token, the OpenAI key (files
    the demo wrote, mode 0600), and the App's private key (each line of its base64 body)."""
    found = {}
    for name in ("webhook-secret", "admin-token", "openai-key"):
        path = os.path.join(workdir, name)
        check(oct(os.stat(path).st_mode & 0o777) == "0o600", name + " is mode 0600")
        found[name] = open(path).read().strip()
    pem = open(os.path.join(workdir, "app.private-key.pem")).read().splitlines()
    for i, line in enumerate(l for l in pem if l and not l.startswith("-----")):
        if len(line) >= 16:
            found["private key line %d" % i] = line
    return found


def check_logs(workdir, subject):
    """No secret in any log of the run; one grep for the PR follows it (docs/AUDIT.md, Logs)."""
    logs = {"demo stdout": "".join(DEMO_STDOUT)}
    for name in os.listdir(workdir):
        if name.endswith(".log") or name == "demo.stderr":
            logs[name] = open(os.path.join(workdir, name), errors="replace").read()
    check(sum(len(t) for t in logs.values()) > 10000, "the run logged (%d bytes, debug level)"
          % sum(len(t) for t in logs.values()))
    for what, secret in secrets_of(workdir).items():
        for name, text in logs.items():
            if secret in text:
                fail("the %s appears in %s" % (what, name))
    # Installation tokens (the simulator's are ghs_sim + 30 hex) and App JWTs (a base64url JSON
    # header, eyJ...) are made during the run; neither may be logged either.
    for what, pattern in (("an installation token", r"ghs_sim[0-9a-f]{30}"),
                          ("an App JWT", r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.")):
        for name, text in logs.items():
            if re.search(pattern, text):
                fail("%s appears in %s" % (what, name))
    check(True, "no secret (webhook secret, admin token, OpenAI key, App key, installation "
          "tokens, JWTs) in %s" % ", ".join(sorted(logs)))
    events = {}
    for line in logs["gatehouse.log"].splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            fail("gatehouse.log has a line that is not JSON: " + line[:200])
        if entry.get("subject") == subject:
            events.setdefault(entry["event"], []).append(entry)
    for event in ("delivery.routed", "github.call_failed", "pass.retry", "pass.dead",
                  "admin.rearmed", "pass.done"):
        check(event in events, "grep %s finds %s (%d)" % (subject, event, len(events.get(event, []))))
    check(all("delivery" in e for e in events["delivery.routed"]), "delivery lines name the delivery")
    check(all("fence" in e for k in ("pass.retry", "pass.dead", "pass.done") for e in events[k]),
          "pass lines carry the fence")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gatehouse", required=True, help="the gatehouse binary")
    parser.add_argument("--sim", required=True, help="the gatehouse-sim binary")
    parser.add_argument("--out", required=True, help="where the screenshots go")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="gatehouse-browser.")

    demo, verdict, serving = start_demo(args.gatehouse, args.sim, workdir)
    driver = None
    try:
        check(verdict is not None and verdict.startswith("verdict: ok "),
              "the demo world played: " + str(verdict))
        dashboard = serving["dashboard"].rstrip("/")
        token = open(serving["token_file"]).read().strip()
        api = Http(dashboard, token)
        sim = Http(serving["sim"])
        check(Http(dashboard).call("GET", "/api/v1/status")[0] == 401,
              "the API refuses a request without the token")

        # A dead item, for real: a new PR, then every read of it fails and a label wakes it.
        owner, repo, number = open_pr(sim)
        subject = "%s/%s#%d" % (owner, repo, number)
        timeline_path = "/api/v1/prs/%s/%s/%d/timeline" % (owner, repo, number)
        wait_for(subject + "'s first verdict", lambda: any(
            e["kind"] == "verdict" for e in api.get(timeline_path)["audit"]))
        faults = {"aimed": [{"method": "GET", "path": "/repos/%s/%s/pulls/%d" % (owner, repo, number),
                             "fault": "server_error", "status": 500, "count": 1000000}]}
        status, body = sim.call("PUT", "/_sim/faults", faults)
        check(status == 200, "the simulator fails every read of " + subject)
        status, body = sim.call("POST", "/_sim/repos/%s/%s/pulls/%d/labels" % (owner, repo, number),
                                {"user": "maintainer", "labels": ["browser-test"]})
        check(status in (200, 201), "a label wakes %s (%s)" % (subject, status))
        item_path = "/api/v1/work/item?key=" + urllib.parse.quote(subject, safe="")
        wait_for(subject + " to be dead",
                 lambda: api.get(item_path)["state"] == "dead", seconds=120)
        dead_item = api.get(item_path)
        print("dashboard_browser_test: ok: %s is dead: %s" % (subject, dead_item["last_error"]))

        check_metrics(dashboard, token)

        driver = browser()
        wait = WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException])

        # 1. Log in.
        driver.get(dashboard + "/")
        wait.until(lambda d: d.find_elements(By.ID, "token"))
        check(driver.current_url.endswith("/login"), "a visit without a cookie lands on /login")
        driver.save_screenshot(os.path.join(args.out, "login.png"))
        driver.find_element(By.ID, "token").send_keys("not-the-token")
        driver.find_element(By.ID, "login").click()
        wait.until(lambda d: d.find_elements(By.ID, "login-failed"))
        check(True, "a wrong token is refused")
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "login").click()
        wait.until(lambda d: d.find_elements(By.ID, "funnel"))
        cookie = driver.get_cookie("gatehouse_admin")
        check(cookie is not None and cookie.get("httpOnly"), "the login set an HttpOnly cookie")

        # 2. The funnel is the API's (read before and after the page: equal, or read again).
        def funnel_matches():
            before = api.get("/api/v1/status")
            driver.get(dashboard + "/")
            shown = {name: text_of(driver, "funnel-" + name) for name in FUNNEL}
            after = api.get("/api/v1/status")
            if any(before[n] != after[n] for n in FUNNEL):
                return None
            return (shown, after)
        shown, status_doc = wait_for("a quiet funnel", funnel_matches)
        for name in FUNNEL:
            check(shown[name] == str(status_doc[name]),
                  "funnel %s on the page (%s) is the API's (%s)" % (name, shown[name], status_doc[name]))
        check(text_of(driver, "work-dead") == str(status_doc["work"]["dead"]),
              "the dead count on the page is the API's (%s)" % status_doc["work"]["dead"])
        rows = driver.find_elements(By.CSS_SELECTOR, "tr.dead-item")
        check(subject in [r.get_attribute("data-key") for r in rows],
              "the overview lists %s as dead" % subject)
        # The rates: the page's script polls /api/v1/status every 5 s and fills them in.
        number = re.compile(r"^[0-9]+\.[0-9]$")
        WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: all(number.match(text_of(d, "rate-" + k)) for k in ("received", "passes", "signals")))
        check(True, "the rates are filled in by the page (%s deliveries/min)" % text_of(driver, "rate-received"))
        driver.save_screenshot(os.path.join(args.out, "overview.png"))

        # 3. The PR's timeline, through the search box.
        box = driver.find_element(By.ID, "pr-search")
        box.send_keys(subject)
        box.submit()
        wait.until(lambda d: d.find_elements(By.ID, "timeline-subject"))
        timeline = api.get(timeline_path)
        check(text_of(driver, "timeline-subject") == subject, "the search opened " + subject)
        check(text_of(driver, "timeline-state") == "dead", "the timeline shows the item dead")
        audit_rows = driver.find_elements(By.CSS_SELECTOR, "#timeline tr[class^=audit-]")
        check(len(audit_rows) == len(timeline["audit"]) and len(audit_rows) > 0,
              "the timeline has the API's %d audit lines" % len(timeline["audit"]))
        kinds = {r.get_attribute("class") for r in audit_rows}
        check("audit-delivery" in kinds and "audit-verdict" in kinds,
              "the timeline shows deliveries and verdicts (%s)" % sorted(kinds))
        blockers = sum(len(e["detail"].get("blockers", [])) for e in timeline["audit"]
                       if e["kind"] == "verdict" and isinstance(e["detail"], dict))
        check(len(driver.find_elements(By.CSS_SELECTOR, "#timeline .blocker")) == blockers,
              "every verdict's blockers are shown (%d)" % blockers)
        check(len(driver.find_elements(By.CSS_SELECTOR, "#actions tr.action")) ==
              len(timeline["actions"]),
              "the timeline has the API's %d ledger actions" % len(timeline["actions"]))
        check(len(driver.find_elements(By.CSS_SELECTOR, "#review-runs tr.review-run")) ==
              len(timeline["review_runs"]),
              "the timeline has the API's %d review runs" % len(timeline["review_runs"]))
        driver.save_screenshot(os.path.join(args.out, "timeline.png"))

        # 4. Re-arm from the dead list, with the fault lifted.
        status, _ = sim.call("PUT", "/_sim/faults", {})
        check(status == 200, "the simulator answers reads again")
        driver.get(dashboard + "/dead")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr.dead-item"))
        driver.save_screenshot(os.path.join(args.out, "dead.png"))
        row = [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.dead-item")
               if r.get_attribute("data-key") == subject]
        check(len(row) == 1, "the dead page lists %s once" % subject)
        row[0].find_element(By.CSS_SELECTOR, "button.rearm").click()
        wait.until(lambda d: subject not in
                   [r.get_attribute("data-key") for r in d.find_elements(By.CSS_SELECTOR, "tr.dead-item")])
        check(True, "after Re-arm %s left the dead list on the page" % subject)
        check(api.get(item_path)["state"] != "dead", "and in the API")
        wait_for(subject + "'s next pass to complete",
                 lambda: api.get(item_path)["done_gen"] > dead_item["done_gen"])
        check(True, "%s's next pass completed" % subject)
        driver.save_screenshot(os.path.join(args.out, "dead-after-rearm.png"))

        driver.get(dashboard + "/work")
        wait.until(lambda d: d.find_elements(By.ID, "items"))
        driver.save_screenshot(os.path.join(args.out, "work.png"))

        # 5. Pause and resume a reviewer.
        driver.get(dashboard + "/reviewers")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr.reviewer"))
        name = driver.find_elements(By.CSS_SELECTOR, "tr.reviewer")[0].get_attribute("data-name")

        def reviewer_state():
            """The state the page shows for `name`, or None while the page reloads."""
            try:
                for r in driver.find_elements(By.CSS_SELECTOR, "tr.reviewer"):
                    if r.get_attribute("data-name") == name:
                        return r.find_element(By.CSS_SELECTOR, ".reviewer-state").text
            except WebDriverException:
                # The page is being replaced: Chromium says "stale element", or that the node
                # "does not belong to the document" (a plain WebDriverException).
                pass
            return None

        def paused_in_api():
            return [r for r in api.get("/api/v1/reviewers")["reviewers"] if r["name"] == name][0]["paused"]

        for want in ("paused", "active"):
            button = [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.reviewer")
                      if r.get_attribute("data-name") == name][0].find_element(By.CSS_SELECTOR, "button")
            button.click()
            wait.until(lambda d: reviewer_state() == want)
            check(paused_in_api() == (want == "paused"), "reviewer %s is %s, page and API" % (name, want))
            if want == "paused":
                driver.save_screenshot(os.path.join(args.out, "reviewers.png"))

        # 6. The merge queues: the demo's acme/mono queue, its entries as GET /api/v1/queues
        # lists them (the demo is over: every entry has ended, merged or bisected out).
        queues = api.get("/api/v1/queues")["queues"]
        mono = [q for q in queues if q["queue"] == "acme/mono@main/queue"]
        check(len(mono) == 1, "the API lists the demo's merge queue")
        want_rows = sorted((e["subject"], e["state"]) for e in mono[0]["ended"])
        check(any(state == "merged" for _, state in want_rows) and
              any(state == "dropped" for _, state in want_rows),
              "its ended entries hold merges and the bisected-out PR (%d)" % len(want_rows))
        driver.get(dashboard + "/queues")
        section = wait.until(lambda d: [q for q in d.find_elements(By.CSS_SELECTOR, "section.queue")
                                        if q.get_attribute("data-queue") == "acme/mono@main/queue"])[0]
        page_rows = []
        for row in section.find_elements(By.CSS_SELECTOR, "tr.ended"):
            cells = row.find_elements(By.TAG_NAME, "td")
            page_rows.append((cells[0].text, cells[1].text))
        check(sorted(page_rows) == want_rows,
              "the Queues page shows the queue's %d ended entries as the API does" % len(want_rows))
        check(not section.find_elements(By.CSS_SELECTOR, "tr.entry") and not mono[0]["open"],
              "no entry left open, on the page and in the API")
        driver.save_screenshot(os.path.join(args.out, "queues.png"))
    finally:
        if driver is not None:
            driver.quit()
        demo.send_signal(signal.SIGTERM)
        try:
            code = demo.wait(timeout=120)
        except subprocess.TimeoutExpired:
            demo.kill()
            code = demo.wait()
    check(code == 0, "the demo stopped cleanly on SIGTERM (exit %s)" % code)
    check_logs(workdir, subject)
    print("dashboard_browser_test: screenshots in " + args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
