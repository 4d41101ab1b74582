// Structural selectors in VS Code: a command per common selector, a quick pick of every selector (with the
// server's descriptions), the cursor node ids kept per document (selectionState.ts), the selections applied at
// once and revealed, the count in the status bar. Errors are a status message, never a modal.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { request } from './rpc';
import { argumentDefault, argumentProblem, argumentPrompt, argumentsSummary, LineText, parseStep, typedArgs } from './selectorArgs';
import { SelectionState, Span } from './selectionState';
import type { ApplySelectorResult, SelectorInfo } from './wire';
import { wireRange } from './wireRanges';

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
        if (editor) this.reset(editor.document.uri.toString());
        else this.show(editor);
      }),
      vscode.commands.registerCommand('tether.select', (chain?: string) => this.chain(chain)),
    ];
  }

  /** A whole chain typed at once (`selectMethods selectFirst`), continuing from the current cursors. */
  async chain(chain?: string): Promise<void> {
    const text = chain ?? (await vscode.window.showInputBox({ prompt: 'Selectors, e.g. selectMethods selectFirst, or selectAt:9,20 (Ln, Col as in the status bar)' }));
    if (!text) return;
    const catalogue = await this.selectors();
    for (const step of text.split(/\s+/).filter(Boolean)) {
      const { selector, args } = parseStep(step, catalogue);
      const problem = args.map((a, k) => argumentProblem(selector, k, a)).find(Boolean);
      if (problem) {
        this.say(`${selector}: ${problem}`);
        return;
      }
      if (!(await this.apply(selector, args))) return;
    }
  }

  /** The server's selectors with their arguments and descriptions (asked once). */
  private async selectors(): Promise<SelectorInfo[] | undefined> {
    const client = this.client();
    if (!this.catalogue && client) {
      try {
        const listed = await request(client, 'tether/listSelectors', {});
        this.catalogue = listed.selectors;
      } catch (err) {
        this.say(`could not list the selectors: ${message(err)}`);
      }
    }
    return this.catalogue;
  }

  private async pick(): Promise<void> {
    const catalogue = await this.selectors();
    const editor = vscode.window.activeTextEditor;
    if (!catalogue || !editor) return;
    const picked = await vscode.window.showQuickPick(
      catalogue.map((s) => ({
        label: s.name,
        description: argumentsSummary(s),
        detail: s.description,
        info: s,
      })),
      { placeHolder: 'Tether: apply a selector to the current cursors', matchOnDetail: true },
    );
    if (!picked) return;
    const name = picked.info.name;
    const args: string[] = [];
    for (const [k, arg] of picked.info.args.entries()) {
      const value = await vscode.window.showInputBox({
        prompt: argumentPrompt(name, arg, k),
        value: argumentDefault(name, k, editor.selection, lineOf(editor.document), tabSizeOf(editor)),
        validateInput: (text) => argumentProblem(name, k, text),
      });
      if (value === undefined) return;
      args.push(value);
    }
    await this.apply(name, args);
  }

  /** Apply one selector to the active document's cursors; false when it failed or left nothing. */
  async apply(selector: string, args: string[]): Promise<boolean> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return false;
    const uri = editor.document.uri.toString();
    let result: ApplySelectorResult;
    const ids = this.state.ids(uri);
    // no structural cursors yet: start from what the user selected (if anything), else from the whole file
    const selected = ids.length ? [] : editor.selections.filter((s) => !s.isEmpty);
    try {
      result = await request(client, 'tether/applySelector', {
        uri,
        selector,
        args: typedArgs(selector, args, await this.selectors(), lineOf(editor.document), tabSizeOf(editor)),
        cursorNodeIds: ids,
        ...(selected.length ? { ranges: selected.map(wireRange) } : {}),
      });
    } catch (err) {
      this.say(`${selector}: ${message(err)}`); // the cursors stay as they were
      return false;
    }
    const selections = result.ranges.map(
      (r) => new vscode.Selection(r.start.line, r.start.character, r.end.line, r.end.character),
    );
    if (!this.state.applied(uri, result.cursorNodeIds, selections.map(spanOf))) {
      // nothing found: the cursors, the selection and the status stay, the next selector goes on from here
      this.show(editor);
      this.say(`${selector}: nothing matched${ids.length ? ' (the cursors stay)' : ''}`);
      return false;
    }
    editor.selections = selections; // one assignment: atomic, one undo stop
    editor.revealRange(selections[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.show(editor);
    return true;
  }

  /** Let a document's structural cursors go (an action used them, or marked them). */
  reset(uri: string): void {
    this.state.reset(uri);
    this.show(vscode.window.activeTextEditor);
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

/** A document's lines for the status bar's columns (undefined past its end). */
function lineOf(document: vscode.TextDocument): LineText {
  return (line) => (line >= 0 && line < document.lineCount ? document.lineAt(line).text : undefined);
}

function tabSizeOf(editor: vscode.TextEditor): number {
  const size = editor.options.tabSize;
  return typeof size === 'number' && size > 0 ? size : 4;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
