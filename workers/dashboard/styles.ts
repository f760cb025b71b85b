/** The dashboard's stylesheet: no framework; cards reflow from one column (phone) to a grid (laptop). */
export const STYLES = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #5f6b7a; --line: #dde2e8;
  --accent: #2456d6; --ok: #1f7a3d; --bad: #b3261e; --warn: #9a6700; --chip: #eef1f5;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12151b; --panel: #1b2029; --text: #e6e9ef; --muted: #9aa5b4; --line: #2c3340;
    --accent: #7aa2ff; --ok: #5cc885; --bad: #ff8a80; --warn: #e3b341; --chip: #252b36;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
header.top {
  display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem;
  padding: .75rem 1.25rem; background: var(--panel); border-bottom: 1px solid var(--line);
}
header.top h1 { font-size: 1.1rem; margin: 0; margin-right: auto; }
header.top form { margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
section { margin-top: 1.5rem; }
h2 { font-size: 1rem; margin: 0 0 .6rem; display: flex; gap: .5rem; align-items: baseline; }
h2 .count { color: var(--muted); font-weight: normal; font-size: .9rem; }
.mono, code { font-family: var(--mono); font-size: .86em; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.took .breakdown { display: block; font-size: .8em; white-space: nowrap; }
.grid { display: grid; gap: .75rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 340px), 1fr)); }
.card {
  background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: .8rem .9rem;
  min-width: 0;
}
.card h3 { margin: 0 0 .4rem; font-size: .95rem; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .75rem; margin: .4rem 0 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; min-width: 0; }
.badge {
  display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .75rem;
  background: var(--chip); color: var(--muted); font-weight: 600; letter-spacing: .02em;
}
.badge.parent { color: var(--accent); }
.badge.succeeded { color: var(--ok); }
.badge.failed { color: var(--bad); }
.badge.scope-open { color: var(--ok); }
.badge.scope-closed { color: var(--warn); }
.badge.fill-near { color: var(--warn); }
.badge.fill-full { color: var(--bad); }
td.fill meter { width: 6rem; vertical-align: middle; }
.countdown { font-variant-numeric: tabular-nums; font-weight: 600; }
.countdown.soon { color: var(--warn); }
ul.waiters { margin: .2rem 0 0; padding-left: 1.1rem; }
.empty { background: var(--panel); border: 1px dashed var(--line); border-radius: 10px; padding: 1rem; color: var(--muted); }
.table-wrap { overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; }
/* Wide tables scroll inside their box on a phone instead of breaking every word. */
table { border-collapse: collapse; width: 100%; min-width: 760px; font-size: .9rem; }
td.mono { overflow-wrap: normal; }
/* An error's message is free text of any length: it wraps inside its cell, never widening the table. */
td.error { min-width: 14rem; max-width: 36rem; white-space: normal; overflow-wrap: anywhere; }
th, td { text-align: left; padding: .45rem .7rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: .8rem; white-space: nowrap; }
tr:last-child td { border-bottom: 0; }
details.scope { margin-bottom: .6rem; }
details.scope > summary {
  cursor: pointer; padding: .55rem .8rem; background: var(--panel); border: 1px solid var(--line);
  border-radius: 10px; list-style-position: inside;
}
details.scope[open] > summary { border-radius: 10px 10px 0 0; }
details.scope .table-wrap { border-top: 0; border-radius: 0 0 10px 10px; }
details.release, details.hold-form { margin-top: .6rem; }
details.release summary, details.hold-form summary { cursor: pointer; color: var(--bad); font-weight: 600; }
details.release form, details.hold-form form { display: grid; gap: .5rem; margin-top: .5rem; }
label { display: grid; gap: .25rem; font-size: .9rem; }
label.check { display: flex; gap: .5rem; align-items: flex-start; }
textarea, input[type=password] {
  font: inherit; padding: .45rem .55rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--text); width: 100%;
}
button {
  font: inherit; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--panel); color: var(--text); cursor: pointer;
}
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
.notice { padding: .6rem .8rem; border-radius: 8px; border: 1px solid var(--line); background: var(--panel); margin-top: 1rem; }
.notice.ok { border-color: var(--ok); }
.notice.bad { border-color: var(--bad); }
#feed-status { font-size: .8rem; color: var(--muted); }
#feed-status::before { content: "●"; margin-right: .3rem; color: var(--warn); }
#feed-status[data-state=live]::before { color: var(--ok); }
#feed-status[data-state=error]::before { color: var(--bad); }
.who { font-size: .85rem; color: var(--muted); }
.signin { max-width: 420px; margin: 12vh auto 0; }
.signin form { display: grid; gap: .75rem; }
.error-text { color: var(--bad); }
form.filter { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: 0 0 1rem; }
form.filter input, form.filter select { max-width: 100%; }
.pager { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; }
ul.problems { padding-left: 1.2rem; }
dl.facts dd { overflow-wrap: anywhere; }
@media (max-width: 600px) {
  main { padding: .75rem .75rem 2rem; }
  header.top { padding: .6rem .75rem; }
  th, td { padding: .4rem .5rem; }
}
`;
