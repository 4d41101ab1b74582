// Tether for VS Code: starts tether-lsp for Python and YAML, keeps the playground informed of the active
// editor and cursor, and adds commands for selectors, markers, replacement previews (red strike-through on
// what would be replaced, green ghost text for what comes; Tab accepts, Escape rejects) and inline tasks.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;
let status;
let pending; // { editor, edit, decorations }

const struck = vscode.window.createTextEditorDecorationType({
  textDecoration: 'line-through',
  backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
});
const ghost = vscode.window.createTextEditorDecorationType({});

function position(editor) {
  const p = editor.selection.active;
  return { line: p.line, character: p.character };
}

function toRange(r) {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

async function select() {
  const editor = vscode.window.activeTextEditor;
  const chain = await vscode.window.showInputBox({ prompt: 'Selectors, e.g. selectFunctions selectName' });
  if (!editor || !chain) return;
  let ids = [];
  let result;
  for (const step of chain.split(/\s+/).filter(Boolean)) {
    const colon = step.indexOf(':');
    const selector = colon < 0 ? step : step.slice(0, colon);
    const args = colon < 0 ? [] : [step.slice(colon + 1)];
    result = await client.sendRequest('tether/applySelector', {
      uri: editor.document.uri.toString(), cursorNodeIds: ids, selector, args,
    });
    ids = result.cursorNodeIds;
    if (ids.length === 0) break;
  }
  if (result && result.ranges.length) {
    editor.selections = result.ranges.map((r) => new vscode.Selection(toRange(r).start, toRange(r).end));
  }
}

async function addMarker() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  const note = await vscode.window.showInputBox({ prompt: 'Note' });
  if (note === undefined) return;
  const s = editor.selection;
  const marker = await client.sendRequest('tether/markers/create', {
    textDocument: { uri: editor.document.uri.toString() },
    range: { start: { line: s.start.line, character: s.start.character }, end: { line: s.end.line, character: s.end.character } },
    note,
  });
  vscode.window.showInformationMessage(`Tether: marker added on lines ${marker.range.start.line + 1}-${marker.range.end.line + 1}`);
}

async function showMarkers() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  const { markers } = await client.sendRequest('tether/markers/list', { textDocument: { uri: editor.document.uri.toString() } });
  const picked = await vscode.window.showQuickPick(markers.map((m) => ({
    label: m.note, description: m.range ? `line ${m.range.start.line + 1}` : `missing (${m.missingReason})`, marker: m,
  })));
  if (picked && picked.marker.range) {
    const r = toRange(picked.marker.range);
    editor.selection = new vscode.Selection(r.start, r.end);
    editor.revealRange(r);
  }
}

function clearPending() {
  if (pending) {
    pending.editor.setDecorations(struck, []);
    pending.editor.setDecorations(ghost, []);
  }
  pending = undefined;
  vscode.commands.executeCommand('setContext', 'tether.replacementPending', false);
}

// Show an analysis: strike the old unit, show the new lines as ghost text (one decoration per line: VS Code
// drops newlines in decoration text), and let Tab / Escape decide.
async function showReplacement(editor, analysis) {
  clearPending();
  if (analysis.mode !== 'replace' || !analysis.showVisualDiff) return false;
  const old = toRange(analysis.replaceRange);
  const lines = analysis.edit.newText.split('\n');
  const ghosts = lines.map((text, k) => {
    const line = Math.min(old.end.line, old.start.line + k);
    const at = editor.document.lineAt(line).range.end;
    return { range: new vscode.Range(at, at), renderOptions: { after: { contentText: `  ⟶ ${text}`, color: new vscode.ThemeColor('editorGhostText.foreground') } } };
  });
  editor.setDecorations(struck, [old]);
  editor.setDecorations(ghost, ghosts);
  pending = { editor, edit: analysis.edit, version: editor.document.version };
  await vscode.commands.executeCommand('setContext', 'tether.replacementPending', true);
  return true;
}

async function previewReplacement(completion) {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  if (completion === undefined) completion = await vscode.window.showInputBox({ prompt: 'Completion text' });
  if (!completion) return;
  const analysis = await client.sendRequest('tether/analyzeReplacement', {
    textDocument: { uri: editor.document.uri.toString(), version: editor.document.version },
    position: position(editor),
    completion: completion.replace(/\\n/g, '\n'),
  });
  status.text = `Tether: ${analysis.mode} (${analysis.reason})`;
  await showReplacement(editor, analysis);
  return analysis;
}

async function acceptReplacement() {
  if (!pending) return;
  const { editor, edit } = pending;
  clearPending();
  const we = new vscode.WorkspaceEdit();
  we.replace(editor.document.uri, toRange(edit.range), edit.newText); // wherever the cursor is (trap B2)
  await vscode.workspace.applyEdit(we);
}

async function runTask() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return;
  const result = await client.sendRequest('tether/tasks/run', {
    textDocument: { uri: editor.document.uri.toString() }, position: position(editor),
  });
  const statuses = result.edits.map((e) => `${vscode.workspace.asRelativePath(vscode.Uri.parse(e.uri))}: ${e.status}`);
  vscode.window.showInformationMessage(`Tether task: ${statuses.join(', ') || 'no change'} (log: ${result.sessionUri})`);
}

// Inline completions from the server (with tether.inference.endpoint set). A multi-line replacement (this
// client opts into such ranges) is not handed to VS Code, which mishandles them: it becomes the preview.
function inlineProvider() {
  return {
    async provideInlineCompletionItems(document, pos, context, token) {
      const editor = vscode.window.activeTextEditor;
      const result = await client.sendRequest('textDocument/inlineCompletion', {
        textDocument: { uri: document.uri.toString() },
        position: { line: pos.line, character: pos.character },
        context: { triggerKind: context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 1 : 2 },
      }, token);
      const items = [];
      for (const item of (result && result.items) || []) {
        const range = item.range ? toRange(item.range) : new vscode.Range(pos, pos);
        if (range.start.line !== range.end.line && editor && editor.document === document) {
          const old = new vscode.Range(range.start.line + (range.start.character === 0 && document.lineAt(range.start.line).isEmptyOrWhitespace ? 1 : 0), 0, range.end.line, range.end.character);
          status.text = 'Tether: replacement pending (Tab / Escape)';
          await showReplacement(editor, {
            mode: 'replace', showVisualDiff: true,
            replaceRange: { start: { line: old.start.line, character: 0 }, end: { line: old.end.line, character: old.end.character } },
            edit: { range: item.range, newText: item.insertText },
          });
          continue;
        }
        items.push(new vscode.InlineCompletionItem(item.insertText, range));
      }
      return items;
    },
  };
}

// The client capability that says multi-line inline completion ranges are handled (by the preview).
const multilineRanges = {
  fillClientCapabilities(capabilities) {
    capabilities.experimental = { ...(capabilities.experimental || {}), tether: { multilineInlineCompletionRange: true } };
  },
  initialize() {},
  getState() { return { kind: 'static' }; },
  dispose() {},
};

function sendCursor(editor) {
  if (!client || !editor || !['python', 'yaml', 'ansible'].includes(editor.document.languageId)) return;
  client.sendNotification('tether/editor/didChangeCursor', {
    textDocument: { uri: editor.document.uri.toString() }, position: position(editor),
  });
}

// The server's `tether` section: every tether.* setting but the extension's own (tether.server.*).
function serverSettings() {
  const all = JSON.parse(JSON.stringify(vscode.workspace.getConfiguration('tether')));
  delete all.server;
  return all;
}

async function activate(context) {
  const config = vscode.workspace.getConfiguration('tether');
  const [command, ...args] = config.get('server.command');
  client = new LanguageClient('tether', 'Tether', { command, args }, {
    documentSelector: [{ language: 'python' }, { language: 'yaml' }, { language: 'ansible' }],
    initializationOptions: { tether: serverSettings() },
    synchronize: { configurationSection: 'tether' },
    middleware: {
      workspace: {
        configuration: (params) => params.items.map((item) => (item.section === 'tether' ? serverSettings() : null)),
      },
    },
  });
  client.registerFeature(multilineRanges);
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  status.text = 'Tether';
  status.show();
  context.subscriptions.push(
    status,
    vscode.commands.registerCommand('tether.select', select),
    vscode.commands.registerCommand('tether.addMarker', addMarker),
    vscode.commands.registerCommand('tether.showMarkers', showMarkers),
    vscode.commands.registerCommand('tether.previewReplacement', previewReplacement),
    vscode.commands.registerCommand('tether.acceptReplacement', acceptReplacement),
    vscode.commands.registerCommand('tether.rejectReplacement', clearPending),
    vscode.commands.registerCommand('tether.runTask', runTask),
    vscode.languages.registerInlineCompletionItemProvider(
      [{ language: 'python' }, { language: 'yaml' }, { language: 'ansible' }], inlineProvider()),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (!editor) return;
      client.sendNotification('tether/editor/didChangeActiveEditor', {
        textDocument: { uri: editor.document.uri.toString() }, position: position(editor),
      });
    }),
    vscode.window.onDidChangeTextEditorSelection((e) => sendCursor(e.textEditor)),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (pending && e.document === pending.editor.document) clearPending(); // the diff no longer applies
    }),
  );
  client.onNotification('tether/playground/didChangeState', (state) => {
    status.text = state.prompt ? `Tether: ${state.prompt.anchor}` : 'Tether: no prompt';
  });
  client.onNotification('tether/markers/didChange', () => {});
  await client.start();
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    client.sendNotification('tether/editor/didChangeActiveEditor', {
      textDocument: { uri: editor.document.uri.toString() }, position: position(editor),
    });
  }
  status.text = 'Tether: ready';
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
