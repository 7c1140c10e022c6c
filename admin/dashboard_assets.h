// The dashboard's style sheet and script, inlined into every page (admin/dashboard.h).
#pragma once

namespace gatehouse::admin {

inline constexpr char kDashboardCss[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header { background: #24292f; color: #fff; padding: 8px 16px; display: flex; gap: 16px;
         align-items: center; flex-wrap: wrap; }
header a { color: #fff; text-decoration: none; font-weight: 600; }
header form { margin: 0; display: inline; }
main { padding: 16px; display: grid; gap: 16px; }
section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 12px 16px; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 16px; margin: 0 0 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eaeef2;
         vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bad { color: #cf222e; font-weight: 600; } .ok { color: #1a7f37; }
.muted { color: #656d76; } code { font-size: 12px; }
button { cursor: pointer; }
)css";

// Buttons carry data-post (an API path); a click POSTs it and reloads the page. The overview
// polls /api/v1/status for the rates (per minute, over the time since the page loaded).
inline constexpr char kDashboardJs[] = R"js(
document.addEventListener('click', async (ev) => {
  const b = ev.target.closest('button[data-post]');
  if (!b) return;
  b.disabled = true;
  const r = await fetch(b.dataset.post, {method: 'POST', credentials: 'same-origin'});
  const text = await r.text();
  const out = document.getElementById('result');
  if (out) out.textContent = r.status + ' ' + text;
  if (r.ok) location.reload(); else b.disabled = false;
});
const rates = document.getElementById('rates');
if (rates) {
  let first = null;
  const tick = async () => {
    const r = await fetch('/api/v1/status', {credentials: 'same-origin'});
    if (!r.ok) return;
    const s = await r.json();
    const now = Date.now();
    const sample = {t: now, received: s.received, passes: s.counters['work.passes_completed'] || 0,
                    signals: s.counters['work.signals'] || 0};
    if (!first) { first = sample; return; }
    const min = (now - first.t) / 60000;
    if (min <= 0) return;
    for (const k of ['received', 'passes', 'signals']) {
      document.getElementById('rate-' + k).textContent = ((sample[k] - first[k]) / min).toFixed(1);
    }
  };
  tick(); setInterval(tick, 5000);
}
)js";

}  // namespace gatehouse::admin
