/**
 * The console's stylesheet and its one script, served from the console itself (no CDN, nothing
 * inline: the CSP allows only these). The script only enhances: every page works without it.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5561; --line: #c9d1d9; --accent: #0b57d0; --bad: #a4161a; --ok: #1e6b33; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #e8a600; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
.top { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; margin: 0; }
nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.mode { display: flex; gap: .75rem; align-items: center; }
.mode p { margin: 0; }
.sign-out { margin-left: auto; }
main { padding: 1rem 1.5rem 3rem; max-width: 72rem; }
button { font: inherit; padding: .35rem .9rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
.badge { display: inline-block; padding: 0 .5rem; border: 1px solid currentColor; border-radius: 999px; font-size: .9rem; }
.mode-test { color: #7a4a00; }
.status-failed, .status-rejected { color: var(--bad); }
.status-completed { color: var(--ok); }
.hint { color: var(--muted); margin: .25rem 0; }
.error { color: var(--bad); }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: 600; padding-bottom: .25rem; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem 1rem; align-items: flex-end; }
.field { display: flex; flex-direction: column; }
.field input, .field select { font: inherit; padding: .3rem; border: 1px solid #6b7681; border-radius: 4px; }
.chart svg { max-width: 100%; height: 12rem; border-bottom: 1px solid var(--line); }
.chart .bar { fill: #0b57d0; }
.chart .axis { stroke: #4a5561; }
.timeline { list-style: none; padding: 0; }
.timeline li { border-left: 3px solid var(--line); padding: 0 0 1rem 1rem; }
.timeline h3 { margin: 0 0 .25rem; font-size: 1.05rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; }
.preview { width: 100%; height: 32rem; border: 1px solid var(--line); }
.notice { border-left: 4px solid var(--ok); padding: .25rem .75rem; }
.warning { border-left: 4px solid var(--bad); padding: .25rem .75rem; }
.secret { border: 2px solid var(--accent); border-radius: 4px; padding: .5rem 1rem; margin: 1rem 0; }
.body, .snippet { white-space: pre-wrap; word-break: break-all; }
.body { background: #f3f5f7; border: 1px solid var(--line); padding: .5rem; }
.secret-value { display: inline-block; padding: .4rem .6rem; background: #f3f5f7; border: 1px solid var(--line); word-break: break-all; user-select: all; }
`;

/**
 * Enhancement only: submitting a filter form leaves out empty fields, for shorter addresses; a
 * copy button (hidden without the script) copies the text of the element its data-copy names.
 */
export const CONSOLE_JS = `'use strict';
document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== 'get') return;
  for (var i = 0; i < form.elements.length; i++) {
    var el = form.elements[i];
    if ((el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.name && el.value === '') el.disabled = true;
  }
});
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById('copy-status');
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(
    function () { if (status) status.textContent = 'Copied.'; },
    function () { if (status) status.textContent = 'Could not copy: select the text and copy it.'; },
  );
});
document.addEventListener('DOMContentLoaded', function () {
  if (!navigator.clipboard) return;
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
});
`;
