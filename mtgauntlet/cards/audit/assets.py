"""The page's inline style sheet and its one small script (filters; the page reads the same without it)."""

CSS = """
:root { --ink:#1d232b; --muted:#5d6773; --line:#dde2e8; --soft:#f4f6f9; --accent:#3565a8;
  --pass:#1f7a43; --pass-bg:#e3f4e9; --fail:#b3261e; --fail-bg:#fbe5e3; --nc:#8a5a00; --nc-bg:#fdf1d8;
  --ins:#d7f0dc; --del:#fadbd8; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: #fff; }
body { margin: 0; }
header.top { background: linear-gradient(180deg, #f3f6fb, #fff); border-bottom: 1px solid var(--line);
  padding: 28px 32px 18px; }
.eyebrow { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--muted); }
h1 { margin: 4px 0 2px; font-size: 28px; line-height: 1.2; }
h1 .ver { color: var(--accent); font-weight: 600; }
h2 { font-size: 21px; margin: 0 0 12px; padding-top: 8px; }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; color: var(--muted); }
.sub { color: var(--muted); margin: 0 0 14px; font-size: 13px; word-break: break-all; }
.kpis { display: flex; flex-wrap: wrap; gap: 10px; }
.kpi { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; background: #fff; min-width: 120px; }
.kpi b { display: block; font-size: 20px; }
.kpi span { font-size: 12px; color: var(--muted); }
.kpi.pass { border-color: #b5dcc3; background: var(--pass-bg); } .kpi.fail { border-color: #efb8b2; background: var(--fail-bg); }
nav.toc { position: sticky; top: 0; z-index: 2; background: rgba(255,255,255,.96); border-bottom: 1px solid var(--line);
  padding: 8px 32px; display: flex; gap: 18px; flex-wrap: wrap; font-size: 14px; }
nav.toc a { color: var(--ink); text-decoration: none; } nav.toc a:hover { color: var(--accent); }
main { max-width: 1180px; margin: 0 auto; padding: 8px 32px 48px; }
section.part { border-bottom: 1px solid var(--line); padding: 18px 0 26px; }
p.note, .note { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13.5px; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.na { color: var(--muted); }
tr.changed td { background: #fff8e1; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(290px, 1fr)); gap: 6px 22px; }
.grid table { width: 100%; align-self: start; }
.bar { display: inline-block; height: 8px; background: #9db7dc; border-radius: 2px; vertical-align: middle; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0 0 12px; font-size: 14px; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; }
pre.sig { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  white-space: pre-wrap; word-break: break-all; font-size: 12.5px; margin: 4px 0; }
code { font-size: 12.5px; background: var(--soft); padding: 0 3px; border-radius: 3px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600;
  white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); } .badge.fail { color: var(--fail); background: var(--fail-bg); }
.badge.not_checked, .badge.nc { color: var(--nc); background: var(--nc-bg); }
.badge.tag { color: var(--accent); background: #e6eef9; font-weight: 500; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 10px 24px; }
figure { margin: 6px 0; } figcaption { font-size: 12.5px; color: var(--muted); }
svg.chart { width: 100%; max-width: 640px; height: auto; font: 11px system-ui, sans-serif; fill: #333; }
.filters { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 6px 0 10px; }
.filters button { border: 1px solid var(--line); background: #fff; border-radius: 14px; padding: 2px 12px;
  font: inherit; font-size: 13px; cursor: pointer; }
.filters button[aria-pressed=true] { background: var(--accent); color: #fff; border-color: var(--accent); }
.filters label { font-size: 13px; color: var(--muted); margin-left: 8px; }
.ex-group h4 { color: var(--ink); }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 8px 0; background: #fff; }
.card.flagged { border-left: 4px solid #e0a43a; }
.card:target { box-shadow: 0 0 0 3px #9db7dc; }
.card .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; font-size: 13px; margin-bottom: 6px; }
.card .head a.id { font-family: ui-monospace, Menlo, Consolas, monospace; color: var(--muted); text-decoration: none; }
.card table.fields { width: 100%; margin: 0; } .card table.fields th { width: 110px; background: none;
  color: var(--muted); font-weight: 500; } .card table.fields td, .card table.fields th { border: 0; padding: 2px 6px; }
.card p.text { margin: 2px 0 4px; font-size: 15px; }
.plots > table { align-self: start; }
.card .checks { font-size: 12px; color: var(--muted); margin-top: 4px; }
del { background: var(--del); color: #7a1c14; text-decoration: line-through; text-decoration-thickness: 1px; }
ins { background: var(--ins); color: #14532d; text-decoration: none; }
table.traj td { font-size: 13px; } table.traj tr.kept td { background: #eef4fc; }
td.ids { max-width: 560px; }
.ids a, .ids span { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; margin-right: 6px; }
.search input { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 14px; width: 340px; }
#search-results li { margin: 4px 0; font-size: 13px; } #search-results .id { font-family: ui-monospace, Menlo, monospace; }
footer { color: var(--muted); font-size: 12px; padding: 16px 32px 32px; max-width: 1180px; margin: 0 auto; }
@media print {
  html { font-size: 10.5pt; }
  nav.toc, .filters, .noprint { display: none !important; }
  header.top { background: none; padding: 0 0 8px; }
  main { max-width: none; padding: 0; }
  .card, table, figure, .kpi { break-inside: avoid; }
  section.part { break-before: page; border: 0; } section.part:first-of-type { break-before: auto; }
  a { color: inherit; text-decoration: none; }
  .card[hidden], .ex-group[hidden] { display: block !important; }
}
"""

# Search over the embedded record index (search.py): results are built with textContent, never innerHTML.
SEARCH_SCRIPT = """
(function () {
  var box = document.getElementById('record-search'), holder = document.getElementById('search-index');
  if (!box || !holder) { return; }
  var index = JSON.parse(holder.textContent), list = document.getElementById('search-results');
  var count = document.getElementById('search-count'), LIMIT = 50;
  index.forEach(function (r) { r.h = [r.i, r.g, r.s].concat(r.t).join('\\n').toLowerCase(); });
  function run() {
    var q = box.value.trim().toLowerCase();
    list.textContent = '';
    if (!q) { count.textContent = ''; return; }
    var found = index.filter(function (r) { return r.h.indexOf(q) >= 0; });
    count.textContent = found.length + ' record' + (found.length === 1 ? '' : 's') + ' match' +
      (found.length > LIMIT ? ' (first ' + LIMIT + ' shown)' : '');
    found.slice(0, LIMIT).forEach(function (r) {
      var li = document.createElement('li'), head = document.createElement(r.a ? 'a' : 'span');
      head.textContent = r.k + ' ' + r.i + (r.g ? ' · ' + r.g : '') + (r.s ? ' · item ' + r.s : '');
      if (r.a) { head.href = '#' + r.a; }
      head.className = 'id';
      var text = document.createElement('div');
      text.textContent = r.t.join(' | ');
      li.setAttribute('data-kind', r.k); li.setAttribute('data-id', r.i);
      li.appendChild(head); li.appendChild(text); list.appendChild(li);
    });
  }
  box.addEventListener('input', run);
  box.closest('.search').hidden = false;
})();
"""

# Filters of the examples (by group, flagged only) and links into filtered-out records. Without scripts the
# filter bars stay hidden and every example shows.
SCRIPT = """
(function () {
  var resets = {};
  document.querySelectorAll('.filters').forEach(function (bar) {
    var kind = bar.getAttribute('data-kind');
    var groups = Array.prototype.filter.call(document.querySelectorAll('.ex-group'), function (g) {
      return g.getAttribute('data-kind') === kind; });
    var box = bar.querySelector('input[type=checkbox]');
    var state = { group: '*', flagged: false };
    function apply() {
      groups.forEach(function (g) {
        g.hidden = !(state.group === '*' || g.getAttribute('data-group') === state.group);
        var shown = 0;
        g.querySelectorAll('.card').forEach(function (c) {
          c.hidden = state.flagged && !c.classList.contains('flagged');
          if (!c.hidden) { shown += 1; }
        });
        if (state.flagged && shown === 0) { g.hidden = true; }
      });
      bar.querySelectorAll('button[data-group]').forEach(function (b) {
        b.setAttribute('aria-pressed', String(b.getAttribute('data-group') === state.group)); });
    }
    bar.addEventListener('click', function (ev) {
      var b = ev.target.closest('button[data-group]');
      if (b) { state.group = b.getAttribute('data-group'); apply(); }
    });
    if (box) { box.addEventListener('change', function () { state.flagged = box.checked; apply(); }); }
    resets[kind] = function () { state.group = '*'; state.flagged = false; if (box) { box.checked = false; } apply(); };
    bar.hidden = false;
    apply();
  });
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { return; }
    var g = el.closest('.ex-group');
    if (g && (g.hidden || el.hidden) && resets[g.getAttribute('data-kind')]) {
      resets[g.getAttribute('data-kind')]();
      el.scrollIntoView();
    }
  }
  window.addEventListener('hashchange', reveal);
  reveal();
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; }); });
})();
"""
