// The replacement preview (struck old code, the new code under it, Tab / Escape, a status bar item while it is
// pending) and inline completions from the server.
import * as vscode from 'vscode';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';

import { cells, dataUri, expandTabs, picture, placement } from './diffImage';
import { afterChange, moveLines } from './previewModel';
import { request } from './rpc';
import type { AnalyzeResult, Edit } from './wire';
import { cursorOf, vscodeRange, wirePosition, wireRange } from './wireRanges';

interface Pending {
  editor: vscode.TextEditor;
  edit: Edit;
  old: vscode.Range; // the struck unit, kept in step with edits above it
}

interface PendingInsert {
  uri: string;
  position: vscode.Position;
  text: string;
  range: vscode.Range;
}

/** What the preview needs of `tether/analyzeReplacement`'s answer (a multi-line inline completion makes one too).
 *  `warning`: accepting would leave the file broken, so it is said, not offered. */
type Analysis = Pick<AnalyzeResult, 'mode' | 'reason' | 'warning' | 'showVisualDiff' | 'replaceRange' | 'edit'>;

const struck = vscode.window.createTextEditorDecorationType({
  textDecoration: 'line-through',
  backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
});
const ghost = vscode.window.createTextEditorDecorationType({});

/** The editor's font, for the preview image to look like code in this editor. */
function look(editor: vscode.TextEditor): Parameters<typeof picture>[1] {
  const config = vscode.workspace.getConfiguration('editor', editor.document);
  const fontSize = config.get<number>('fontSize') ?? 14;
  const lineHeight = config.get<number>('lineHeight') || Math.round(fontSize * (process.platform === 'darwin' ? 1.5 : 1.35));
  const tabSize = typeof editor.options.tabSize === 'number' ? editor.options.tabSize : 4;
  const kind = vscode.window.activeColorTheme.kind;
  const dark = kind === vscode.ColorThemeKind.Dark || kind === vscode.ColorThemeKind.HighContrast;
  return { fontFamily: config.get<string>('fontFamily') ?? 'monospace', fontSize, lineHeight, tabSize, dark };
}

export class ReplacementPreview implements vscode.HoverProvider {
  private pending: Pending | undefined;
  private pendingInsert: PendingInsert | undefined;

  constructor(
    private readonly client: () => LanguageClient | undefined,
  ) {
    this.pendingStatus.text = '$(diff) Tether replacement pending: Tab accepts, Escape rejects';
    this.pendingStatus.tooltip = 'Accept the replacement shown under the struck code';
    this.pendingStatus.command = 'tether.acceptReplacement';
  }

  /** Shown exactly while a replacement preview is pending. */
  private readonly pendingStatus = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 97);

  commands(): vscode.Disposable[] {
    return [
      this.pendingStatus,
      vscode.commands.registerCommand('tether.previewReplacement', (c?: string) => this.previewReplacement(c)),
      vscode.commands.registerCommand('tether.acceptReplacement', () => this.acceptReplacement()),
      vscode.commands.registerCommand('tether.rejectReplacement', () => this.clearPending()),
      vscode.workspace.onDidChangeTextDocument((e) => this.edited(e)),
      vscode.languages.registerHoverProvider([{ scheme: 'file' }, { scheme: 'untitled' }], this),
    ];
  }

  clearPending(): void {
    if (this.pending) {
      this.pending.editor.setDecorations(struck, []);
      this.pending.editor.setDecorations(ghost, []);
    }
    this.pending = undefined;
    this.pendingStatus.hide();
    void vscode.commands.executeCommand('setContext', 'tether.replacementPending', false);
  }

  /** An edit inside (or touching) the struck unit clears the preview; one above it moves it; one below keeps it. */
  private edited(e: vscode.TextDocumentChangeEvent): void {
    const pending = this.pending;
    if (!pending || e.document !== pending.editor.document) return;
    for (const change of e.contentChanges) {
      const before = { start: pending.old.start, end: pending.old.end };
      const moved = afterChange(before, { range: change.range, text: change.text });
      if (moved === null) {
        this.clearPending();
        return;
      }
      const delta = moved.start.line - before.start.line;
      if (delta !== 0) {
        pending.old = new vscode.Range(pending.old.start.translate(delta), pending.old.end.translate(delta));
        pending.edit = { newText: pending.edit.newText, range: moveLines(pending.edit.range, delta) };
      }
    }
  }

  // Strike the old unit and show the new code under it as one image (every line, indentation kept, syntax
  // colours: see diffImage.ts for why not text); hovering the struck code shows the new code too, as the editor
  // colours it. Tab accepts and Escape rejects wherever the cursor is.
  async showReplacement(editor: vscode.TextEditor, analysis: Analysis): Promise<boolean> {
    this.clearPending();
    if (analysis.mode !== 'replace' || !analysis.showVisualDiff || !analysis.replaceRange) return false;
    const document = editor.document;
    const old = vscodeRange(analysis.replaceRange);
    const shown = picture(analysis.edit.newText, look(editor), document.languageId);
    const tab = typeof editor.options.tabSize === 'number' ? editor.options.tabSize : 4;
    const lastStruck = Math.min(old.end.line, document.lineCount - 1);
    const first = document.lineAt(old.start.line);
    const editStart = analysis.edit.range.start;
    const before = document.lineAt(Math.min(editStart.line, document.lineCount - 1)).text.slice(0, editStart.character);
    const css = placement({ indent: cells(expandTabs(before, tab)) + shown.indent, lines: lastStruck - old.start.line + 1 });
    const image = {
      range: new vscode.Range(first.range.end, first.range.end),
      renderOptions: {
        after: {
          contentIconPath: vscode.Uri.parse(dataUri(shown.svg)),
          width: `${shown.width}px`,
          height: `${shown.height}px`,
          textDecoration: css, // laid over the editor instead of stretching this line (which the editor would clip)
        },
      },
    };
    editor.setDecorations(struck, [old]);
    editor.setDecorations(ghost, [image]);
    this.pending = { editor, edit: analysis.edit, old };
    this.reveal(editor, old, shown.lines.length);
    this.pendingStatus.show();
    await vscode.commands.executeCommand('setContext', 'tether.replacementPending', true);
    return true;
  }

  /** Scroll so that the struck code and the room under it (where the image may go) are in view. */
  private reveal(editor: vscode.TextEditor, old: vscode.Range, newLines: number): void {
    const visible = editor.visibleRanges;
    if (!visible.length) return;
    const top = visible[0].start.line;
    const bottom = visible[visible.length - 1].end.line;
    const lastLine = editor.document.lineCount - 1;
    const wholeDocument = top === 0 && bottom >= lastLine; // the page shows everything, with space under it
    const need = old.end.line + newLines + 1;
    if (old.start.line >= top && (need <= bottom || wholeDocument)) return;
    if (need <= lastLine) editor.revealRange(new vscode.Range(old.start.line, 0, need, 0), vscode.TextEditorRevealType.Default);
    else editor.revealRange(new vscode.Range(old.start.line, 0, old.start.line, 0), vscode.TextEditorRevealType.AtTop);
  }

  /** Hovering the struck code: the new code, coloured by the editor, with Accept and Reject. */
  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const pending = this.pending;
    if (!pending || pending.editor.document !== document || !pending.old.contains(position)) return undefined;
    const text = new vscode.MarkdownString();
    text.isTrusted = { enabledCommands: ['tether.acceptReplacement', 'tether.rejectReplacement'] };
    text.appendMarkdown('**Tether replacement** — the struck code becomes:\n\n');
    text.appendCodeblock(pending.edit.newText, document.languageId);
    text.appendMarkdown('[Accept (Tab)](command:tether.acceptReplacement) · [Reject (Escape)](command:tether.rejectReplacement)');
    return new vscode.Hover(text, pending.old);
  }

  /** An insertion is VS Code's own business: offered once as an inline suggestion where it goes. */
  private async offerInsert(editor: vscode.TextEditor, analysis: Analysis): Promise<void> {
    const range = vscodeRange(analysis.edit.range);
    this.pendingInsert = { uri: editor.document.uri.toString(), position: range.start, text: analysis.edit.newText, range };
    editor.selection = new vscode.Selection(range.start, range.start);
    await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
  }

  private async previewReplacement(completion?: string): Promise<AnalyzeResult | undefined> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return undefined;
    const text = completion ?? (await vscode.window.showInputBox({ prompt: 'Completion text' }));
    if (!text) return undefined;
    const analysis = await request(client, 'tether/analyzeReplacement', {
      textDocument: { uri: editor.document.uri.toString(), version: editor.document.version },
      position: cursorOf(editor),
      completion: text.replace(/\\n/g, '\n'),
    });
    vscode.window.setStatusBarMessage(`Tether: ${analysis.mode} (${analysis.reason})`, 5000);
    if (analysis.warning) void vscode.window.showWarningMessage(`Tether: completion not offered: ${analysis.warning}`);
    else if (analysis.mode === 'insert') await this.offerInsert(editor, analysis);
    else await this.showReplacement(editor, analysis);
    return analysis;
  }

  private async acceptReplacement(): Promise<void> {
    if (!this.pending) return;
    const { editor, edit } = this.pending;
    this.clearPending();
    const we = new vscode.WorkspaceEdit();
    we.replace(editor.document.uri, vscodeRange(edit.range), edit.newText); // wherever the cursor is
    await vscode.workspace.applyEdit(we);
  }

  // Inline completions from the server (with tether.inference.endpoint set). A multi-line replacement (this
  // client opts into such ranges) is not handed to VS Code, which mishandles them: it becomes the preview.
  inlineProvider(): vscode.InlineCompletionItemProvider {
    return {
      provideInlineCompletionItems: async (document, pos, context, token) => {
        const offered = this.pendingInsert;
        if (offered && offered.uri === document.uri.toString() && offered.position.isEqual(pos)) {
          this.pendingInsert = undefined;
          return [new vscode.InlineCompletionItem(offered.text, offered.range)];
        }
        const client = this.client();
        if (!client) return [];
        const editor = vscode.window.activeTextEditor;
        const result = await request(
          client,
          'textDocument/inlineCompletion',
          {
            textDocument: { uri: document.uri.toString() },
            position: wirePosition(pos),
            context: { triggerKind: context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 1 : 2 },
          },
          token,
        );
        const items: vscode.InlineCompletionItem[] = [];
        for (const item of result?.items ?? []) {
          const range = item.range ? vscodeRange(item.range) : new vscode.Range(pos, pos);
          if (range.start.line !== range.end.line && editor && editor.document === document && item.range) {
            const blankFirst = range.start.character === 0 && document.lineAt(range.start.line).isEmptyOrWhitespace;
            const old = new vscode.Range(range.start.line + (blankFirst ? 1 : 0), 0, range.end.line, range.end.character);
            await this.showReplacement(editor, {
              mode: 'replace',
              reason: 'inline completion',
              showVisualDiff: true,
              replaceRange: wireRange(old),
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
}

/** The client capability that says multi-line inline completion ranges are handled (by the preview). */
export const multilineRanges: StaticFeature = {
  fillClientCapabilities(capabilities) {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), tether: { multilineInlineCompletionRange: true } };
  },
  initialize() {},
  getState() {
    return { kind: 'static' };
  },
  clear() {},
};
