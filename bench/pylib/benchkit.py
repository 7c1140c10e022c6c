"""What the Python benchmarks share: a keep-alive JSON client, starting a process and reading
its listening URL, waiting until gatehouse is at rest, percentiles, a fresh App key pair, and
reading gatehouse's /metrics."""
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse

# The benchmarks' repository policy: check `ci` green, one approval, autonomy auto.
POLICY_CI_AND_ONE_APPROVAL = """version: 1
rules:
  required_checks:
    checks: [ci]
  approvals:
    min: 1
actions:
  autonomy: auto
"""


class Client:
    """A keep-alive JSON client for one base URL (one per thread)."""

    def __init__(self, base, token=None):
        u = urllib.parse.urlparse(base)
        self.host, self.port = u.hostname, u.port
        self.token = token
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def raw(self, method, path, body=None):
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.HTTPException, ConnectionError):
                if attempt:
                    raise
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def call(self, method, path, body=None):
        status, text = self.raw(method, path, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {text[:200]!r}")
        return json.loads(text) if text else None


def start(argv, log_path, env=None, prefix=None, lines=1):
    """Starts a process; returns it and the URLs of its first `lines` '<prefix>: ... on URL'
    lines (one URL when lines == 1)."""
    out = open(log_path, "w")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=out, text=True, env=env)
    pattern = re.compile(r"^" + re.escape(prefix) + r": (?:listening|admin) on (http://\S+)")
    urls = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        m = pattern.match(line.strip())
        if m:
            urls.append(m.group(1))
            if len(urls) == lines:
                threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
                return p, (urls[0] if lines == 1 else urls)
    p.kill()
    sys.exit(f"{argv[0]} did not start; see {log_path}")


def app_key_pair(work):
    """A fresh RSA key pair for the App: (private PEM path, public PEM path)."""
    key, pub = os.path.join(work, "app.pem"), os.path.join(work, "app.pub.pem")
    subprocess.check_call(["openssl", "genrsa", "-out", key, "2048"], stderr=subprocess.DEVNULL)
    subprocess.check_call(["openssl", "rsa", "-in", key, "-pubout", "-out", pub],
                          stderr=subprocess.DEVNULL)
    return key, pub


APP_ID = "4242"


def start_sim(build, work, env, public_key):
    """`gatehouse-sim serve` on a free port as App APP_ID with `public_key`: (process, URL)."""
    return start([os.path.join(build, "gatehouse-sim"), "serve", "--listen", "127.0.0.1:0",
                  "--app-id", APP_ID, "--app-public-key", public_key, "--log-level", "warn"],
                 os.path.join(work, "sim.log"), env, "gatehouse-sim")


def status(gatehouse, db):
    return json.loads(subprocess.check_output([gatehouse, "status", "--db", db, "--json"]))


def wait_at_rest(gatehouse, db, quiet_s=2.0, limit_s=300, min_passes=0):
    """Waits until gatehouse has no delivery in flight, no pass running, at least `min_passes`
    passes completed, and no pass completed for quiet_s; with min_passes, also no pending item
    already due (items waiting on a later timer may stay pending). Returns the last status."""
    last = None
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        st = status(gatehouse, db)
        work, counters = st.get("work", {}), st.get("counters", {})
        key = (st.get("in_flight"), work.get("running"), counters.get("work.passes_completed"))
        overdue = work.get("oldest_pending_age_seconds", 0) if min_passes else 0
        if (key[0] == 0 and key[1] == 0 and overdue == 0 and (key[2] or 0) >= min_passes
                and key == last):
            return st
        last = key
        time.sleep(quiet_s)
    sys.exit("gatehouse did not come to rest")


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def metrics(admin):
    """gatehouse's /metrics as {(name, ((label, value), ...)): value}."""
    status_code, text = admin.raw("GET", "/metrics")
    if status_code != 200:
        raise RuntimeError(f"GET /metrics: {status_code}")
    out = {}
    line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')
    for line in text.decode().splitlines():
        m = line_re.match(line)
        if not m:
            continue
        labels = tuple(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def metric_sum(samples, name, **labels):
    total = 0.0
    for (n, ls), v in samples.items():
        if n == name and all(dict(ls).get(k) == val for k, val in labels.items()):
            total += v
    return total


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stop(procs):
    import signal
    for p in reversed(procs):
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
