"""A page looked at in headless Chromium (the Debian package `chromium`), driven by a wrapper page:
the page in a 1,280 px iframe, a script that uses it as a person would and writes what it saw into
the wrapper's DOM, which Chromium prints (--dump-dom). No driver library, no network."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH = 1280
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions"]

# Runs in the wrapper once the iframe's page has loaded: every element whose right edge passes the
# viewport, then (the explorer) each filter's count and rows, the first row opened, then every group's rows' set cells.
CHECK = """
const f = document.getElementById('f'), started = performance.now();
f.addEventListener('load', () => setTimeout(() => {
  const d = f.contentDocument, out = {loaded_ms: performance.now() - started};
  const over = () => [...d.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > d.documentElement.clientWidth + 0.5)
    .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 60));
  out.viewport = d.documentElement.clientWidth; out.overflow = over();
  out.header_lines = Object.fromEntries([...d.querySelectorAll('thead th')].map(th => {
    const r = d.createRange(); r.selectNodeContents(th.querySelector('span') || th);
    return [th.textContent, r.getClientRects().length]; }));
  const count = d.getElementById('count');
  if (count) {
    const ids = () => [...d.querySelectorAll('#rows tr.q td:first-child')].map(td => td.textContent);
    out.shown = {'': count.textContent}; out.ids = {'': ids()};
    for (const v of ['flipped', 'failed', 'bm25', '']) {
      const s = d.getElementById('filter'); s.value = v; s.dispatchEvent(new Event('change'));
      out.shown[v] = count.textContent; out.ids[v] = ids();
    }
    const first = d.querySelector('#rows tr.q');
    if (first) { first.click(); out.opened = d.querySelector('td.detail').innerText; out.overflow_open = over(); }
    const g = d.getElementById('group'); g.value = ''; g.dispatchEvent(new Event('change'));
    out.sets = [...d.querySelectorAll('#rows tr.q td:nth-child(2)')].map(td => td.textContent);  // every group's
  }
  document.getElementById('result').textContent = JSON.stringify(out);
}, 50));
"""


def look(page: Path, tmp: Path, budget_ms: int = 20_000) -> dict:
    """What CHECK saw of `page` at 1,280 px."""
    wrapper = tmp / f"look-{page.stem}.html"
    wrapper.write_text(f'<!doctype html><html><body style="margin:0"><pre id="result"></pre>'
                       f'<iframe id="f" src="{page.resolve().as_uri()}" style="width:{WIDTH}px;height:900px;border:0">'
                       f"</iframe><script>{CHECK}</script></body></html>", encoding="utf-8")
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--window-size={WIDTH + 40},1000", f"--virtual-time-budget={budget_ms}",
                           "--dump-dom", wrapper.as_uri()], capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="result">(.*?)</pre>', proc.stdout, re.S)
    assert found and found[1], f"nothing seen of {page}: {proc.stderr[-2000:]}"
    return json.loads(unescape(found[1]))


def screenshot(url: str, path: Path, height: int = 1600) -> None:
    subprocess.run([CHROMIUM, *FLAGS, f"--window-size={WIDTH},{height}", "--virtual-time-budget=10000",
                    f"--screenshot={path}", url], capture_output=True, timeout=180, check=True)
