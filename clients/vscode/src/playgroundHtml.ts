// The playground panel's page: plain DOM, VS Code theme colours, a strict content security policy (only this
// page's script, by nonce). It renders what the extension posts and posts back what the user does.
import { compareOutputs, outputView, runSummary } from './playgroundModel';

export function panelHtml(cspSource: string, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Prompt Playground</title>
<style>
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 12px; }
  h2 { font-size: 1.05em; margin: 14px 0 6px; text-transform: uppercase; letter-spacing: .04em; opacity: .8; }
  .muted { opacity: .7; }
  ul { list-style: none; padding: 0; margin: 0; }
  #prompts li { padding: 3px 6px; border-radius: 3px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; }
  #prompts li:hover { background: var(--vscode-list-hoverBackground); }
  #prompts li.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
  #prompts li:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
  .anchor { font-family: var(--vscode-editor-font-family); font-weight: 600; margin-right: 8px; }
  .badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: .85em; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); margin-left: 6px; }
  pre { font-family: var(--vscode-editor-font-family); white-space: pre-wrap; word-break: break-word; background: var(--vscode-textCodeBlock-background); padding: 8px; border-radius: 3px; margin: 4px 0; }
  label { display: block; margin: 6px 0 2px; font-family: var(--vscode-editor-font-family); }
  textarea, input { box-sizing: border-box; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 5px; }
  textarea { width: 100%; resize: vertical; overflow: hidden; min-height: 1.9em; line-height: 1.4; }
  #model { display: grid; grid-template-columns: minmax(8em, 2fr) minmax(5em, 1fr) minmax(5em, 1fr); gap: 8px; }
  #model label { margin: 0 0 2px; }
  #model input { width: 100%; }
  button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 12px; margin: 8px 6px 0 0; cursor: pointer; }
  button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
  button:disabled { opacity: .5; cursor: default; }
  #error { color: var(--vscode-errorForeground); }
  #history li { border-top: 1px solid var(--vscode-panel-border); padding: 4px 0; }
  #history li .head { display: flex; gap: 6px; align-items: center; }
  #compare .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
  #compare .column { min-width: 0; }
  #compare .line.differs { background: var(--vscode-diffEditor-insertedTextBackground); }
  #compare pre .line { display: block; min-height: 1.2em; }
</style>
</head>
<body>
  <div id="file" class="muted"></div>
  <h2>Prompts</h2>
  <ul id="prompts" role="listbox" aria-label="Prompts in this file"></ul>
  <div id="selected"></div>
  <div id="error"></div>
  <h2 id="output-title" hidden>Output</h2>
  <pre id="output" hidden></pre>
  <div id="run-status" class="muted"></div>
  <div id="compare" hidden></div>
  <h2 id="history-title" hidden>Runs</h2>
  <div id="history-hint" class="muted" hidden>Tick two runs to compare them side by side.</div>
  <ul id="history"></ul>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const compareOutputs = ${compareOutputs.toString()};
const outputView = ${outputView.toString()};
const runSummary = ${runSummary.toString()};
const values = {};            // promptId -> {name: value}, what the user typed
const models = {};            // promptId -> {model, temperature, maxTokens}, as typed
let promptId = null;
let live = null;              // the run started here: {promptId, anchor, text, ended?} (one at a time)
let runs = [];                // the runs of the prompt on view, newest first
const ticked = [];            // runIds picked for the comparison, oldest first
let defaults = { model: '' };
const $ = (id) => document.getElementById(id);
const el = (tag, props, ...children) => { const e = Object.assign(document.createElement(tag), props || {}); e.append(...children); return e; };

function current() {
  const out = {};
  for (const input of document.querySelectorAll('#inputs textarea')) out[input.dataset.name] = input.value;
  return out;
}

function modelInputs() {
  const read = (name) => { const e = document.querySelector('#model [data-name="' + name + '"]'); return e ? e.value : ''; };
  return { model: read('model'), temperature: read('temperature'), maxTokens: read('maxTokens') };
}

/** A variable's box is as tall as its text: nothing is cut off. */
function grow(box) {
  box.style.height = 'auto';
  box.style.height = (box.scrollHeight + 2) + 'px';
}

function changed() {
  if (!promptId) return;
  values[promptId] = current();
  models[promptId] = modelInputs();
  vscode.postMessage({ type: 'variables', variables: current(), inputs: modelInputs() });
}

function when(iso) {
  const date = new Date(iso);
  return isNaN(date) ? iso : date.toLocaleString();
}

function runLine(r) {
  return runSummary(r, when);
}

/** The output area, Run and Cancel for the prompt on view: its own run, else its last answer. */
function showRun() {
  if (!promptId) return;
  const view = outputView(promptId, live, runs[0], runLine);
  $('output').hidden = view.output === null; $('output-title').hidden = view.output === null;
  $('output').textContent = view.output || '';
  $('run-status').textContent = view.status;
  $('error').textContent = view.error;
  if ($('run')) $('run').disabled = !view.canRun;
  if ($('cancel')) $('cancel').disabled = !view.canCancel;
}

function renderHistory(list) {
  runs = list || [];
  for (let k = ticked.length - 1; k >= 0; k--) if (!runs.some((r) => r.runId === ticked[k])) ticked.splice(k, 1);
  $('history').replaceChildren(...runs.map((r) => {
    const box = el('input', { type: 'checkbox', checked: ticked.includes(r.runId), title: 'Compare this run' });
    box.dataset.run = r.runId;
    box.addEventListener('change', () => {
      const k = ticked.indexOf(r.runId);
      if (box.checked && k < 0) ticked.push(r.runId);
      if (!box.checked && k >= 0) ticked.splice(k, 1);
      while (ticked.length > 2) ticked.shift();
      renderHistory(runs);
    });
    return el('li', {},
      el('div', { className: 'head' }, box, el('span', { className: 'muted', textContent: runLine(r) })),
      el('div', { textContent: Object.entries(r.variables).map(([k, v]) => k + '=' + v).join(', ') }),
      el('pre', { textContent: r.output }));
  }));
  $('history-title').hidden = !runs.length;
  $('history-hint').hidden = runs.length < 2;
  renderCompare();
}

function renderCompare() {
  const picked = ticked.map((id) => runs.find((r) => r.runId === id)).filter(Boolean);
  if (picked.length !== 2) { $('compare').hidden = true; $('compare').replaceChildren(); return; }
  const [a, b] = picked[0].createdAt <= picked[1].createdAt ? picked : [picked[1], picked[0]];
  const lines = compareOutputs(a.output, b.output);
  const column = (r, marked) => el('div', { className: 'column' },
    el('div', { className: 'muted', textContent: runLine(r) }),
    el('div', { textContent: Object.entries(r.variables).map(([k, v]) => k + '=' + v).join(', ') }),
    el('pre', {}, ...marked.map((l) => el('span', { className: 'line' + (l.differs ? ' differs' : ''), textContent: l.text }))));
  const close = el('button', { className: 'secondary', textContent: 'Close' });
  close.addEventListener('click', () => { ticked.length = 0; renderHistory(runs); });
  const same = a.output === b.output ? [el('p', { className: 'muted', textContent: 'The two outputs are identical.' })] : [];
  $('compare').replaceChildren(el('h2', { textContent: 'Two runs side by side' }), ...same,
    el('div', { className: 'columns' }, column(a, lines.left), column(b, lines.right)), close);
  $('compare').hidden = false;
}

function clearRun() {
  $('output').hidden = true; $('output').textContent = ''; $('output-title').hidden = true;
  $('run-status').textContent = ''; $('error').textContent = '';
}

function render(state, saved, list, inputs, editorName) {
  $('file').textContent = state.file ? decodeURIComponent(state.file.uri.split('/').pop()) + (state.parseError ? ' — ' + state.parseError : '')
    : editorName ? editorName : 'No Python or YAML editor is active.';
  $('prompts').replaceChildren(...state.prompts.map((p) => {
    const item = el('li', {
      className: state.prompt && state.prompt.promptId === p.promptId ? 'selected' : '', title: p.preview + ' (click to go to it)', tabIndex: 0,
    }, el('span', { className: 'anchor', textContent: p.anchor }), el('span', { className: 'muted', textContent: p.preview }));
    item.setAttribute('role', 'option');
    item.dataset.prompt = p.promptId;
    const go = () => vscode.postMessage({ type: 'reveal', promptId: p.promptId });
    item.addEventListener('click', go);
    item.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
    return item;
  }));
  const p = state.prompt;
  if (!p) {
    promptId = null;
    $('selected').replaceChildren(el('p', { className: 'muted', textContent: state.prompts.length ? 'Put the cursor in a prompt, or click one above, to select it.' : 'No prompts in this file.' }));
    clearRun();
    ticked.length = 0;
    renderHistory([]);
    return;
  }
  if (saved) values[p.promptId] = Object.assign({}, saved, values[p.promptId] || {});
  if (inputs && !models[p.promptId]) models[p.promptId] = inputs;
  const changedPrompt = p.promptId !== promptId;
  if (!changedPrompt && $('inputs')) { values[p.promptId] = Object.assign(values[p.promptId] || {}, current()); models[p.promptId] = modelInputs(); }
  promptId = p.promptId;
  const mine = values[p.promptId] || {};
  const model = models[p.promptId] || { model: '', temperature: '', maxTokens: '' };
  const pinned = state.pin && state.pin.promptId === p.promptId;
  const boxes = [];
  const inputsEl = (p.variables || []).map((name) => {
    const box = el('textarea', { value: mine[name] || '', rows: 1 });
    box.dataset.name = name;
    box.addEventListener('input', () => { grow(box); changed(); });
    boxes.push(box);
    return el('div', {}, el('label', { textContent: name }), box);
  });
  const field = (name, label, props) => {
    const input = el('input', Object.assign({}, props, { value: model[name] || '' }));
    input.dataset.name = name;
    input.addEventListener('input', changed);
    return el('div', {}, el('label', { textContent: label }), input);
  };
  const run = el('button', { id: 'run', textContent: 'Run' });
  run.addEventListener('click', () => vscode.postMessage({ type: 'run', variables: current(), inputs: modelInputs() }));
  const cancel = el('button', { id: 'cancel', className: 'secondary', textContent: 'Cancel', disabled: true });
  cancel.addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  const pin = el('button', { id: 'pin', className: 'secondary', textContent: pinned ? 'Unpin' : 'Pin' });
  pin.addEventListener('click', () => vscode.postMessage({ type: pinned ? 'unpin' : 'pin' }));
  $('selected').replaceChildren(
    el('h2', {}, el('span', { className: 'anchor', textContent: p.anchor }), el('span', { className: 'badge', id: 'reason', textContent: p.reason }),
      ...(p.role ? [el('span', { className: 'badge', textContent: p.role })] : [])),
    el('pre', { id: 'content', textContent: p.content }),
    el('div', { id: 'inputs' }, ...inputsEl),
    el('div', { id: 'model' },
      field('model', 'model', { type: 'text', placeholder: defaults.model || 'the configured model', spellcheck: false }),
      field('temperature', 'temperature', { type: 'number', min: 0, max: 2, step: 0.1, placeholder: 'default' }),
      field('maxTokens', 'max tokens', { type: 'number', min: 1, step: 1, placeholder: 'default' })),
    run, cancel, pin);
  for (const box of boxes) requestAnimationFrame(() => grow(box));
  if (changedPrompt) {
    clearRun(); ticked.length = 0;
    if (live && live.ended !== undefined) live = null; // a stopped run's partial answer is not kept once left
  }
  if (list || changedPrompt) renderHistory(list || []);
  showRun();
}

window.addEventListener('message', (event) => {
  const m = event.data;
  if (m.type === 'state') { if (m.defaults) defaults = m.defaults; render(m.state, m.variables, m.runs, m.inputs, m.editorName); }
  else if (m.type === 'running') { live = { promptId: m.promptId, anchor: m.anchor, text: '' }; showRun(); }
  else if (m.type === 'output') {
    if (!live || live.ended !== undefined) return;
    live.text += m.delta;
    if (live.promptId === promptId) $('output').textContent += m.delta; // another prompt's answer is not shown
  } else if (m.type === 'done') {
    live = null;
    if (m.promptId === promptId) renderHistory(m.runs); // its run is now the newest
    showRun();
  } else if (m.type === 'failed') {
    if (m.promptId && live && live.promptId === m.promptId) { live.ended = m.message; showRun(); }
    else if (!m.promptId || m.promptId === promptId) $('error').textContent = m.message;
  }
});
window.addEventListener('resize', () => document.querySelectorAll('#inputs textarea').forEach(grow));
vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
}
