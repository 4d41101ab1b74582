// Structural selectors in VS Code: a command per common selector, a quick pick of every selector (with the
// server's descriptions), the cursor node ids kept per document (selectionState.ts), the selections applied at
// once and revealed, the count in the status bar. Errors are a status message, never a modal.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { SelectorInfo, typedArgs } from './selectorArgs';
import { SelectionState, Span } from './selectionState';

interface ApplyResult {
  ranges: { start: { line: number; character: number }; end: { line: number; character: number } }[];
  cursorNodeIds: number[];
}


/** The everyday selectors, each a command (and a keybinding in package.json). */
export const COMMON: readonly [string, string][] = [
  ['functions', 'selectFunctions'],
  ['methods', 'selectMethods'],
  ['classes', 'selectClasses'],
  ['name', 'selectName'],
  ['body', 'selectBody'],
  ['parent', 'selectParent'],
  ['children', 'selectChildren'],
  ['nextSibling', 'selectNextSibling'],
  ['prevSibling', 'selectPrevSibling'],
  ['first', 'selectFirst'],
  ['last', 'selectLast'],
  ['pairs', 'selectPairs'],
  ['key', 'selectKey'],
  ['value', 'selectValue'],
];

function spanOf(s: vscode.Selection | vscode.Range): Span {
  return { startLine: s.start.line, startCharacter: s.start.character, endLine: s.end.line, endCharacter: s.end.character };
}

export class Selectors implements vscode.Disposable {
  readonly state = new SelectionState();
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 99);
  private readonly disposables: vscode.Disposable[] = [];
  private catalogue: SelectorInfo[] | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.status.command = 'tether.select.reset';
    this.status.tooltip = 'Tether structural cursors (click to reset)';
    this.disposables.push(
      this.status,
      vscode.window.onDidChangeTextEditorSelection((e) => {
        const uri = e.textEditor.document.uri.toString();
        if (this.state.selectionChanged(uri, e.selections.map(spanOf))) this.show(e.textEditor);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.state.edited(e.document.uri.toString())) this.show(vscode.window.activeTextEditor);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.state.forget(d.uri.toString())),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.show(editor)),
    );
  }

  commands(): vscode.Disposable[] {
    return [
      ...COMMON.map(([id, selector]) => vscode.commands.registerCommand(`tether.select.${id}`, () => this.apply(selector, []))),
      vscode.commands.registerCommand('tether.select.nth', async () => {
        const n = await vscode.window.showInputBox({ prompt: 'n (0-based; negative counts from the end)', value: '0' });
        if (n !== undefined) await this.apply('selectNth', [n]);
      }),
      vscode.commands.registerCommand('tether.select.pick', () => this.pick()),
      vscode.commands.registerCommand('tether.select.reset', () => {
        const editor = vscode.window.activeTextEditor;
        if (editor) this.state.reset(editor.document.uri.toString());
        this.show(editor);
      }),
      vscode.commands.registerCommand('tether.select', (chain?: string) => this.chain(chain)),
    ];
  }

  /** A whole chain typed at once (`selectMethods selectFirst`), continuing from the current cursors. */
  async chain(chain?: string): Promise<void> {
    const text = chain ?? (await vscode.window.showInputBox({ prompt: 'Selectors, e.g. selectMethods selectFirst' }));
    if (!text) return;
    for (const step of text.split(/\s+/).filter(Boolean)) {
      const colon = step.indexOf(':');
      const ok = await this.apply(colon < 0 ? step : step.slice(0, colon), colon < 0 ? [] : [step.slice(colon + 1)]);
      if (!ok) return;
    }
  }

  /** The server's selectors with their arguments and descriptions (asked once). */
  private async selectors(): Promise<SelectorInfo[] | undefined> {
    const client = this.client();
    if (!this.catalogue && client) {
      try {
        const listed = await client.sendRequest<{ selectors: SelectorInfo[] }>('tether/listSelectors', {});
        this.catalogue = listed.selectors;
      } catch (err) {
        this.say(`could not list the selectors: ${message(err)}`);
      }
    }
    return this.catalogue;
  }

  private async pick(): Promise<void> {
    const catalogue = await this.selectors();
    if (!catalogue || !vscode.window.activeTextEditor) return;
    const picked = await vscode.window.showQuickPick(
      catalogue.map((s) => ({
        label: s.name,
        description: s.args.map((a) => `${a.name}: ${a.type}`).join(', '),
        detail: s.description,
        info: s,
      })),
      { placeHolder: 'Tether: apply a selector to the current cursors', matchOnDetail: true },
    );
    if (!picked) return;
    const args: string[] = [];
    for (const arg of picked.info.args) {
      const value = await vscode.window.showInputBox({ prompt: `${picked.info.name}: ${arg.name} (${arg.type})` });
      if (value === undefined) return;
      args.push(value);
    }
    await this.apply(picked.info.name, args);
  }

  /** Apply one selector to the active document's cursors; false when it failed or left nothing. */
  async apply(selector: string, args: string[]): Promise<boolean> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return false;
    const uri = editor.document.uri.toString();
    let result: ApplyResult;
    const ids = this.state.ids(uri);
    // no structural cursors yet: start from what the user selected (if anything), else from the whole file
    const selected = ids.length ? [] : editor.selections.filter((s) => !s.isEmpty);
    try {
      result = await client.sendRequest<ApplyResult>('tether/applySelector', {
        uri,
        selector,
        args: typedArgs(selector, args, await this.selectors()),
        cursorNodeIds: ids,
        ...(selected.length
          ? { ranges: selected.map((s) => ({ start: { line: s.start.line, character: s.start.character }, end: { line: s.end.line, character: s.end.character } })) }
          : {}),
      });
    } catch (err) {
      this.say(`${selector}: ${message(err)}`); // the cursors stay as they were
      return false;
    }
    if (result.cursorNodeIds.length === 0) {
      this.state.reset(uri); // nothing left: the state ends quietly, the selection stays
      this.show(editor);
      this.say(`${selector}: nothing matched`);
      return false;
    }
    const selections = result.ranges.map(
      (r) => new vscode.Selection(r.start.line, r.start.character, r.end.line, r.end.character),
    );
    this.state.applied(uri, result.cursorNodeIds, selections.map(spanOf));
    editor.selections = selections; // one assignment: atomic, one undo stop
    editor.revealRange(selections[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.show(editor);
    return true;
  }

  private show(editor: vscode.TextEditor | undefined): void {
    const count = editor ? this.state.count(editor.document.uri.toString()) : undefined;
    if (count === undefined) {
      this.status.hide();
      return;
    }
    this.status.text = `$(list-selection) ${count} cursor${count === 1 ? '' : 's'}`;
    this.status.show();
  }

  private say(text: string): void {
    vscode.window.setStatusBarMessage(`Tether: ${text}`, 5000);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
