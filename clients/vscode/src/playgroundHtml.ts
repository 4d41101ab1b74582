// The playground panel's page: plain DOM, VS Code theme colours, a strict content security policy (only this
// page's script, by nonce). It renders what the extension posts and posts back what the user does.

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
  #prompts li { padding: 3px 6px; border-radius: 3px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  #prompts li.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
  .anchor { font-family: var(--vscode-editor-font-family); font-weight: 600; margin-right: 8px; }
  .badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: .85em; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); margin-left: 6px; }
  pre { font-family: var(--vscode-editor-font-family); white-space: pre-wrap; word-break: break-word; background: var(--vscode-textCodeBlock-background); padding: 8px; border-radius: 3px; margin: 4px 0; }
  label { display: block; margin: 6px 0 2px; font-family: var(--vscode-editor-font-family); }
  textarea { width: 100%; box-sizing: border-box; min-height: 2.2em; font-family: var(--vscode-editor-font-family); color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
  button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 12px; margin: 8px 6px 0 0; cursor: pointer; }
  button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
  button:disabled { opacity: .5; cursor: default; }
  #error { color: var(--vscode-errorForeground); }
  #history li { border-top: 1px solid var(--vscode-panel-border); padding: 4px 0; }
</style>
</head>
<body>
  <div id="file" class="muted"></div>
  <h2>Prompts</h2>
  <ul id="prompts"></ul>
  <div id="selected"></div>
  <div id="error"></div>
  <h2 id="output-title" hidden>Output</h2>
  <pre id="output" hidden></pre>
  <div id="run-status" class="muted"></div>
  <h2 id="history-title" hidden>Runs</h2>
  <ul id="history"></ul>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const values = {};            // promptId -> {name: value}, what the user typed
let promptId = null;
let running = false;
const $ = (id) => document.getElementById(id);
const el = (tag, props, ...children) => { const e = Object.assign(document.createElement(tag), props || {}); e.append(...children); return e; };

function current() {
  const out = {};
  for (const input of document.querySelectorAll('#inputs textarea')) out[input.dataset.name] = input.value;
  return out;
}

function renderHistory(runs) {
  $('history').replaceChildren(...(runs || []).map((r) => el('li', {},
    el('div', { className: 'muted', textContent: new Date(r.createdAt).toLocaleString() + ' · ' + r.model + ' · ' + r.durationMs + ' ms' }),
    el('div', { textContent: Object.entries(r.variables).map(([k, v]) => k + '=' + v).join(', ') }),
    el('pre', { textContent: r.output }))));
  $('history-title').hidden = !(runs && runs.length);
}

function render(state, saved, runs) {
  $('file').textContent = state.file ? decodeURIComponent(state.file.uri.split('/').pop()) + (state.parseError ? ' — ' + state.parseError : '') : 'No Python or YAML editor is active.';
  $('prompts').replaceChildren(...state.prompts.map((p) => el('li', {
    className: state.prompt && state.prompt.promptId === p.promptId ? 'selected' : '', title: p.preview,
  }, el('span', { className: 'anchor', textContent: p.anchor }), el('span', { className: 'muted', textContent: p.preview }))));
  const p = state.prompt;
  if (!p) {
    promptId = null;
    $('selected').replaceChildren(el('p', { className: 'muted', textContent: state.prompts.length ? 'Put the cursor in a prompt to select it.' : 'No prompts in this file.' }));
    return;
  }
  if (saved) values[p.promptId] = Object.assign({}, saved, values[p.promptId] || {});
  const changed = p.promptId !== promptId;
  if (!changed && $('inputs')) values[p.promptId] = Object.assign(values[p.promptId] || {}, current());
  promptId = p.promptId;
  const mine = values[p.promptId] || {};
  const pinned = state.pin && state.pin.promptId === p.promptId;
  const inputs = (p.variables || []).map((name) => {
    const box = el('textarea', { value: mine[name] || '', rows: 1 });
    box.dataset.name = name;
    box.addEventListener('input', () => { values[p.promptId] = current(); vscode.postMessage({ type: 'variables', variables: current() }); });
    return el('div', {}, el('label', { textContent: name }), box);
  });
  const run = el('button', { id: 'run', textContent: 'Run', disabled: running });
  run.addEventListener('click', () => vscode.postMessage({ type: 'run', variables: current() }));
  const cancel = el('button', { id: 'cancel', className: 'secondary', textContent: 'Cancel', disabled: !running });
  cancel.addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  const pin = el('button', { id: 'pin', className: 'secondary', textContent: pinned ? 'Unpin' : 'Pin' });
  pin.addEventListener('click', () => vscode.postMessage({ type: pinned ? 'unpin' : 'pin' }));
  $('selected').replaceChildren(
    el('h2', {}, el('span', { className: 'anchor', textContent: p.anchor }), el('span', { className: 'badge', id: 'reason', textContent: p.reason }),
      ...(p.role ? [el('span', { className: 'badge', textContent: p.role })] : [])),
    el('pre', { id: 'content', textContent: p.content }),
    el('div', { id: 'inputs' }, ...inputs),
    run, cancel, pin);
  if (changed) { $('output').hidden = true; $('output-title').hidden = true; $('run-status').textContent = ''; $('error').textContent = ''; }
  if (runs) renderHistory(runs);
}

window.addEventListener('message', (event) => {
  const m = event.data;
  if (m.type === 'state') render(m.state, m.variables, m.runs);
  else if (m.type === 'running') {
    running = true; $('error').textContent = ''; $('output').textContent = ''; $('output').hidden = false; $('output-title').hidden = false;
    $('run-status').textContent = 'Running…'; if ($('run')) $('run').disabled = true; if ($('cancel')) $('cancel').disabled = false;
  } else if (m.type === 'output') $('output').textContent += m.delta;
  else if (m.type === 'done' || m.type === 'failed') {
    running = false; if ($('run')) $('run').disabled = false; if ($('cancel')) $('cancel').disabled = true;
    if (m.type === 'done') {
      $('output').textContent = m.result.output;
      $('run-status').textContent = m.result.model + ' · ' + (m.result.finishReason || 'done') + ' · ' + m.result.durationMs + ' ms';
      renderHistory(m.runs);
    } else { $('run-status').textContent = ''; $('error').textContent = m.message; }
  }
});
vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
}
