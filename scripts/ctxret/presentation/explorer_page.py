"""The per-question explorer: one offline HTML page, its data embedded as JSON and drawn by a small
inline script, a page of rows at a time (10,000 questions load in a second or two)."""
from __future__ import annotations

import json
from html import escape

PAGE_SIZE = 50  # rows drawn at a time
# <, > and & as JSON escapes: no text in the data (`</script>`, `<!--<script>`) can end or comment
# out its script element, and JSON.parse reads the same text back
JSON_IN_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;line-height:1.4}
table{border-collapse:collapse;width:100%;font-size:88%;table-layout:fixed}td,th{border:1px solid #ccc;
padding:2px 5px;overflow-wrap:anywhere;vertical-align:top}th{background:#f3f3f3}tr.q{cursor:pointer}
tr.q:hover{background:#f7f7ff}.controls{display:flex;flex-wrap:wrap;gap:.5em 1.2em;margin:.5em 0 1em}
.hit{color:#1a7f37}.miss{color:#b42318}.gold{background:#fff4c2}.detail{background:#fafafa;padding:.6em}
.detail h4{margin:.6em 0 .2em}.text{white-space:pre-wrap;font-size:92%;max-height:14em;overflow:auto;
border-left:3px solid #ddd;padding-left:.5em}.top{display:grid;grid-template-columns:1fr 1fr;gap:1em}
ol{padding-left:1.6em;margin:.2em 0}.pager button{margin-right:.4em}code{font-size:90%}
th.c{overflow-wrap:normal;vertical-align:bottom;text-align:left}
.gen{font-size:80%;background:#eef;border:1px solid #99c;border-radius:3px;padding:0 3px}
th.c span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap}"""
# a condition's header is one line turned upright (th.c): never broken inside its name, however narrow

SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent), T = D.words;
const $ = id => document.getElementById(id);
let rows = [], page = 0, open = null;
function pairOf() { return D.pairs[+$('pair').value]; }
function k() { return +$('k').value; }
function hit(r) { return r !== null && r <= k(); }
function rankCell(r) { return r === null ? '<span class="miss">-</span>'
  : `<span class="${hit(r) ? 'hit' : 'miss'}">${r}</span>`; }
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c])); }
function keep(q) {
  const p = pairOf(), f = $('filter').value, g = $('group').value, s = $('search').value.trim().toLowerCase();
  if (g && !q.groups.includes(g)) return false;
  if (s && !(q.id.toLowerCase().includes(s) || q.q.toLowerCase().includes(s))) return false;
  if (f === 'flipped') return p !== undefined && hit(q.ranks[p.a]) !== hit(q.ranks[p.b]);
  if (f === 'failed') return q.ranks.every(r => !hit(r));
  if (f === 'bm25') return q.ranks.some((r, i) => D.bm25[i] && hit(r)) && q.ranks.every((r, i) => D.bm25[i] || !hit(r));
  return true;
}
function chunkHtml(id, gold) {
  const c = D.chunks[id], mark = gold.includes(id);
  return `<li class="${mark ? 'gold' : ''}">${mark ? '★ ' : ''}<b>${esc(c.name)}</b> ${esc(c.label)}
    <div class="text">${esc(c.text)}</div></li>`;
}
function detail(q) {
  const p = pairOf();
  let h = `<h4>${esc(T.question)}</h4><div class="text">${esc(q.q)}</div>`;
  for (const id of q.gold) {
    const c = D.chunks[id];
    h += `<h4>★ ${esc(T.gold_chunk)}: ${esc(c.name)} ${esc(c.label)}</h4><div class="text">${esc(c.text)}</div>`;
    for (const [v, text] of Object.entries(c.contexts || {}))
      h += `<h4>${esc(T.context)} ${esc(v)}</h4><div class="text">${esc(text)}</div>`;
  }
  h += '<div class="top">';
  for (const side of p ? [p.a, p.b] : D.conditions.map((c, i) => i)) {
    const r = q.ranks[side];
    h += `<div><h4>${esc(T.top)} ${esc(D.conditions[side])} (${esc(T.rank)} ${r === null ? '-' : r})</h4><ol>`
      + q.top[side].map(id => chunkHtml(id, q.gold)).join('') + '</ol></div>';
  }
  return h + '</div>';
}
function draw() {
  const n = D.conditions.length, start = page * D.page_size, shown = rows.slice(start, start + D.page_size);
  $('count').textContent = T.count.replace('{n}', rows.length).replace('{all}', D.questions.length);
  let h = '';
  for (const i of shown) {
    const q = D.questions[i];
    h += `<tr class="q" data-i="${i}"><td>${esc(q.id)}</td><td>${esc(q.set)}${q.generated
      ? ` <span class="gen">${esc(T.generated)}</span>` : ''}</td><td>${esc(q.q)}</td>
      <td>${q.gold.map(id => esc(D.chunks[id].name)).join(', ')}</td>${q.ranks.map(r => `<td>${rankCell(r)}</td>`).join('')}</tr>`;
    if (open === i) h += `<tr><td colspan="${4 + n}" class="detail">${detail(q)}</td></tr>`;
  }
  $('rows').innerHTML = h;
  const pages = Math.max(1, Math.ceil(rows.length / D.page_size));
  $('page').textContent = `${page + 1} / ${pages}`;
  $('prev').disabled = page === 0; $('next').disabled = page + 1 >= pages;
}
function filter() { rows = []; D.questions.forEach((q, i) => { if (keep(q)) rows.push(i); }); page = 0; draw(); }
function openQuestion(i) { open = open === i ? null : i; draw(); }
$('rows').addEventListener('click', e => { const tr = e.target.closest('tr.q'); if (tr) openQuestion(+tr.dataset.i); });
const byPair = () => { if (pairOf()) $('group').value = pairOf().group; };
$('pair').addEventListener('change', () => { byPair(); filter(); });
for (const id of ['k', 'filter', 'group']) $(id).addEventListener('change', filter);
$('search').addEventListener('input', filter);
$('prev').addEventListener('click', () => { page--; draw(); });
$('next').addEventListener('click', () => { page++; draw(); });
const wanted = new URLSearchParams(location.hash.slice(1));
const named = D.pairs.findIndex(p => D.conditions[p.a] === wanted.get('a') && D.conditions[p.b] === wanted.get('b')
  && p.group === wanted.get('group'));
if (named >= 0) $('pair').value = named;
byPair();
if (wanted.has('k')) $('k').value = wanted.get('k');
if (wanted.has('filter')) $('filter').value = wanted.get('filter');
filter();
if (wanted.has('q')) {
  const i = D.questions.findIndex(q => q.id === wanted.get('q'));
  if (i >= 0) { page = Math.floor(Math.max(0, rows.indexOf(i)) / D.page_size); openQuestion(i); }
}
"""


def _options(items: list[tuple[str, str]]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in items)


def explorer_html(data: dict, t: dict, title: str, language: str) -> str:
    """The page: controls, an empty table the script fills, the data as JSON (<, > and & escaped)."""
    conditions = data["conditions"]
    pairs = [(str(i), f"{conditions[p['a']]} vs {conditions[p['b']]} ({p['group']})") for i, p in enumerate(data["pairs"])]
    filters = [("", t["ex_all"]), ("flipped", t["ex_flipped"]), ("failed", t["ex_failed"]), ("bm25", t["ex_bm25"])]
    controls = (f'<label>{escape(t["ex_pair"])} <select id="pair">{_options(pairs)}</select></label>'
                f'<label>k <select id="k">{_options([(str(k), str(k)) for k in data["ks"]])}</select></label>'
                f'<label>{escape(t["ex_filter"])} <select id="filter">{_options(filters)}</select></label>'
                f'<label>{escape(t["group"])} <select id="group">'
                f'{_options([("", t["ex_all"]), *((g, g) for g in data["groups"])])}</select></label>'
                f'<label>{escape(t["ex_search"])} <input id="search" type="search" size="16"></label>')
    widths = '<col style="width:7%"><col style="width:4%"><col style="width:30%"><col style="width:12%">' + \
        "<col>" * len(conditions)
    head = "".join(f"<th>{escape(h)}</th>" for h in (t["qid"], t["set"], t["question"], t["gold_chunk"])) + "".join(
        f'<th class="c" title="{escape(c)}"><span>{escape(c)}</span></th>' for c in conditions)
    payload = json.dumps({**data, "words": {key: t[f"ex_{key}"] for key in ("question", "gold_chunk", "context", "top",
                                                                               "rank", "count", "generated")},
                          "page_size": PAGE_SIZE}, ensure_ascii=False, separators=(",", ":")).translate(JSON_IN_HTML)
    return (f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>\n<h1>{escape(t['ex_title'])}</h1><p>{escape(title)}</p>"
            f"<p>{escape(t['ex_note'])}</p><div class=\"controls\">{controls}</div>"
            f'<p><span id="count"></span> <span class="pager"><button id="prev">◀</button><span id="page"></span> '
            f'<button id="next">▶</button></span></p>'
            f"<table><colgroup>{widths}</colgroup><thead><tr>{head}</tr></thead><tbody id=\"rows\"></tbody></table>"
            f'<script type="application/json" id="data">{payload}</script><script>{SCRIPT}</script></body></html>\n')
