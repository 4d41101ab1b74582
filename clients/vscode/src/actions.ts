// Structural actions in VS Code (`tether/applyAction`): remove, clone, move up/down, insert, wrap, unwrap, and
// move, bring and swap with the mark as their second place. Each acts on the Tether selection (its node ids), else
// on the editor's selections or cursor; the server answers one edit and the ranges it produced. The edit is applied
// with workspace.applyEdit, one call per document (one undo step in each), after checking that each document is
// still at the version the edit is for; then what it produced is selected. Errors are one warning line.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import {
  ACTION_COMMANDS,
  ActionCommand,
  editsByDocument,
  errorText,
  selectionPlan,
  shiftSpan,
  staleDocuments,
  targetCount,
  targetsOf,
  WRAPPERS,
} from './actionModel';
import { request } from './rpc';
import type { Selectors } from './selectors';
import type { ActionDestination, ApplyActionParams, ApplyActionResult } from './wire';
import { vscodeRange, wireRange } from './wireRanges';

/** The mark: move's and bring's destination, swap's other target. Its spans are offsets kept through edits; its
 *  node ids are used while its document is at the version they belong to. */
interface Mark {
  uri: string;
  version: number;
  ids: number[] | undefined;
  spans: { start: number; end: number }[];
}

const WRAPPER_HELP: Record<string, string> = {
  try: 'try: … except Exception: raise',
  with: 'with context: …',
  if: 'if condition: …',
  call: 'function(…) around an expression',
};

/** A marked span as drawn: a bare cursor's mark is its line's code (the server takes the code under it). */
function shown(document: vscode.TextDocument, span: { start: number; end: number }): vscode.Range {
  const start = document.positionAt(span.start);
  if (span.end > span.start) return new vscode.Range(start, document.positionAt(span.end));
  const line = document.lineAt(start.line);
  return new vscode.Range(line.firstNonWhitespaceCharacterIndex < line.text.length ? line.range.start.translate(0, line.firstNonWhitespaceCharacterIndex) : line.range.start, line.range.end);
}

export class Actions implements vscode.Disposable {
  private mark: Mark | undefined;
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('tether.markBackground'),
    border: '1px solid',
    borderColor: new vscode.ThemeColor('tether.markBorder'),
    overviewRulerColor: new vscode.ThemeColor('tether.markBorder'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly label = vscode.window.createTextEditorDecorationType({
    after: { contentText: '◆ mark', color: new vscode.ThemeColor('tether.markBorder'), margin: '0 0 0 1.5em', fontWeight: 'bold' },
  });
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly selectors: Selectors,
  ) {
    this.disposables.push(
      this.highlight,
      this.label,
      vscode.workspace.onDidChangeTextDocument((e) => this.follow(e)),
      vscode.workspace.onDidCloseTextDocument((d) => d.uri.toString() === this.mark?.uri && this.unmark()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.draw()),
    );
  }

  commands(): vscode.Disposable[] {
    return [
      ...ACTION_COMMANDS.map((c) => vscode.commands.registerCommand(`tether.action.${c.id}`, () => this.run(c))),
      vscode.commands.registerCommand('tether.action.mark', () => this.setMark()),
      vscode.commands.registerCommand('tether.action.unmark', () => this.unmark()),
    ];
  }

  /** Run one action command on the current targets. */
  async run(command: ActionCommand): Promise<void> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) {
      this.warn(`${command.action}: ${client ? 'no editor is active' : 'the server is not running'}`);
      return;
    }
    const document = editor.document;
    const uri = document.uri.toString();
    const targets = targetsOf(this.selectors.state.ids(uri), editor.selections.map(wireRange));
    const params: ApplyActionParams = { textDocument: { uri, version: document.version }, action: command.action, targets, after: command.after };
    const pair = command.second === 'swap' && targetCount(targets) === 2; // two targets swap with each other
    if (command.second === 'mark' || (command.second === 'swap' && !pair)) {
      const destination = this.destination();
      if (!destination) {
        this.warn(
          command.second === 'swap'
            ? 'swap needs two targets: two Tether cursors or selections, or one and the mark (Tether: Mark)'
            : `${command.action} needs a destination: mark it first (Tether: Mark)`,
        );
        return;
      }
      params.destination = destination;
    }
    if (command.action === 'wrap') {
      const picked = await vscode.window.showQuickPick(
        WRAPPERS.map((w) => ({ label: w, description: WRAPPER_HELP[w] })),
        { placeHolder: 'Tether: wrap the target in…' },
      );
      if (!picked) return;
      params.wrapper = picked.label;
    }
    let result: ApplyActionResult;
    try {
      result = await request(client, 'tether/applyAction', params);
    } catch (err) {
      if ((err as { code?: unknown }).code === -32801) this.selectors.reset(uri); // its ids are of an older version
      this.warn(errorText(command.action, err));
      return;
    }
    if (params.destination) this.unmark(); // the mark is used up
    await this.apply(result, command.action, uri);
  }

  /** The answer applied, one document at a time (each its own undo step), unless one moved on meanwhile. */
  private async apply(result: ApplyActionResult, action: string, activeUri: string): Promise<void> {
    const changes = editsByDocument(result.edit);
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
    const stale = staleDocuments(changes, (uri) => open.get(uri)?.version);
    if (stale.length) {
      this.warn(`${action}: the document changed while the server answered; nothing was changed, try again`);
      return;
    }
    for (const change of changes) {
      const edit = new vscode.WorkspaceEdit();
      const document = open.get(change.uri) as vscode.TextDocument;
      edit.set(document.uri, change.edits.map((e) => new vscode.TextEdit(vscodeRange(e.range), e.newText)));
      if (!(await vscode.workspace.applyEdit(edit))) {
        this.warn(`${action}: VS Code did not apply the edit to ${vscode.workspace.asRelativePath(document.uri)}`);
        return;
      }
    }
    const plan = selectionPlan(result.produced, activeUri, action);
    if (!plan) return;
    const document = open.get(plan.uri);
    if (!document) return;
    const editor =
      vscode.window.activeTextEditor?.document === document
        ? vscode.window.activeTextEditor
        : await vscode.window.showTextDocument(document, { preserveFocus: false });
    const selections = plan.ranges.map((r) => new vscode.Selection(r.start.line, r.start.character, r.end.line, r.end.character));
    editor.selections = selections;
    editor.revealRange(selections[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** `Tether: Mark`: the current target becomes the mark (highlighted, "◆ mark" after its first line); the Tether
   *  selection is let go and the editor's selection collapses, so the next selector or click picks the targets. */
  private setMark(): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const document = editor.document;
    const uri = document.uri.toString();
    const ids = this.selectors.state.ids(uri);
    this.mark = {
      uri,
      version: document.version,
      ids: ids.length ? [...ids] : undefined,
      spans: editor.selections.map((s) => ({ start: document.offsetAt(s.start), end: document.offsetAt(s.end) })),
    };
    void vscode.commands.executeCommand('setContext', 'tether.marked', true);
    this.selectors.reset(uri);
    const active = editor.selection.active;
    editor.selections = [new vscode.Selection(active, active)];
    this.draw();
    const n = this.mark.spans.length;
    vscode.window.setStatusBarMessage(`Tether: marked ${n} target${n === 1 ? '' : 's'} (the destination of Move, Bring and Swap)`, 5000);
  }

  private unmark(): void {
    this.mark = undefined;
    void vscode.commands.executeCommand('setContext', 'tether.marked', false);
    this.draw();
  }

  /** The mark as the request's `destination`: its ids while its document is unchanged, else its ranges now. */
  private destination(): ActionDestination | undefined {
    const mark = this.mark;
    const document = mark && vscode.workspace.textDocuments.find((d) => d.uri.toString() === mark.uri);
    if (!mark || !document) return undefined;
    const where: ActionDestination =
      mark.ids && mark.version === document.version
        ? { cursorNodeIds: mark.ids }
        : { ranges: mark.spans.map((s) => wireRange(new vscode.Range(document.positionAt(s.start), document.positionAt(s.end)))) };
    const active = vscode.window.activeTextEditor?.document;
    if (active !== document) where.textDocument = { uri: mark.uri, version: document.version };
    return where;
  }

  /** The mark follows edits of its document. */
  private follow(e: vscode.TextDocumentChangeEvent): void {
    const mark = this.mark;
    if (!mark || e.document.uri.toString() !== mark.uri || !e.contentChanges.length) return;
    const changes = e.contentChanges.map((c) => ({ rangeOffset: c.rangeOffset, rangeLength: c.rangeLength, textLength: c.text.length }));
    mark.spans = mark.spans.map((s) => shiftSpan(s, changes));
    this.draw();
  }

  /** The mark's decorations in every visible editor of its document (none in the others). */
  private draw(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const mark = this.mark && editor.document.uri.toString() === this.mark.uri ? this.mark : undefined;
      const document = editor.document;
      const ranges = mark ? mark.spans.map((s) => shown(document, s)) : [];
      editor.setDecorations(this.highlight, ranges);
      const first = ranges[0];
      const end = first && document.lineAt(first.start.line).range.end;
      editor.setDecorations(this.label, end ? [new vscode.Range(end, end)] : []);
    }
  }

  private warn(text: string): void {
    void vscode.window.showWarningMessage(`Tether: ${text}`);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
