// The other features as the first extension had them (replacement preview with Tab/Escape,
// inline tasks, inline completions, the playground's prompt in the status bar), typed. Later work replaces each
// with its full UI.
import * as vscode from 'vscode';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';

type Wire = { start: { line: number; character: number }; end: { line: number; character: number } };

interface Pending {
  editor: vscode.TextEditor;
  edit: { range: Wire; newText: string };
}

interface Analysis {
  mode: string;
  reason: string;
  showVisualDiff: boolean;
  replaceRange: Wire;
  edit: { range: Wire; newText: string };
}

export function toRange(r: Wire): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export function position(editor: vscode.TextEditor): { line: number; character: number } {
  const p = editor.selection.active;
  return { line: p.line, character: p.character };
}

const struck = vscode.window.createTextEditorDecorationType({
  textDecoration: 'line-through',
  backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
});
const ghost = vscode.window.createTextEditorDecorationType({});

export class Features {
  private pending: Pending | undefined;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly status: vscode.StatusBarItem,
  ) {}

  commands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('tether.previewReplacement', (c?: string) => this.previewReplacement(c)),
      vscode.commands.registerCommand('tether.acceptReplacement', () => this.acceptReplacement()),
      vscode.commands.registerCommand('tether.rejectReplacement', () => this.clearPending()),
      vscode.commands.registerCommand('tether.runTask', () => this.runTask()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.pending && e.document === this.pending.editor.document) this.clearPending(); // no longer applies
      }),
    ];
  }

  clearPending(): void {
    if (this.pending) {
      this.pending.editor.setDecorations(struck, []);
      this.pending.editor.setDecorations(ghost, []);
    }
    this.pending = undefined;
    void vscode.commands.executeCommand('setContext', 'tether.replacementPending', false);
  }

  // Strike the old unit, show the new lines as ghost text (one decoration per line: VS Code drops newlines in
  // decoration text), and let Tab / Escape decide.
  async showReplacement(editor: vscode.TextEditor, analysis: Analysis): Promise<boolean> {
    this.clearPending();
    if (analysis.mode !== 'replace' || !analysis.showVisualDiff) return false;
    const old = toRange(analysis.replaceRange);
    const lines = analysis.edit.newText.split('\n');
    const ghosts = lines.map((text, k) => {
      const line = Math.min(old.end.line, old.start.line + k);
      const at = editor.document.lineAt(line).range.end;
      return {
        range: new vscode.Range(at, at),
        renderOptions: { after: { contentText: `  ⟶ ${text}`, color: new vscode.ThemeColor('editorGhostText.foreground') } },
      };
    });
    editor.setDecorations(struck, [old]);
    editor.setDecorations(ghost, ghosts);
    this.pending = { editor, edit: analysis.edit };
    await vscode.commands.executeCommand('setContext', 'tether.replacementPending', true);
    return true;
  }

  private async previewReplacement(completion?: string): Promise<Analysis | undefined> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return undefined;
    const text = completion ?? (await vscode.window.showInputBox({ prompt: 'Completion text' }));
    if (!text) return undefined;
    const analysis = await client.sendRequest<Analysis>('tether/analyzeReplacement', {
      textDocument: { uri: editor.document.uri.toString(), version: editor.document.version },
      position: position(editor),
      completion: text.replace(/\\n/g, '\n'),
    });
    this.status.text = `Tether: ${analysis.mode} (${analysis.reason})`;
    await this.showReplacement(editor, analysis);
    return analysis;
  }

  private async acceptReplacement(): Promise<void> {
    if (!this.pending) return;
    const { editor, edit } = this.pending;
    this.clearPending();
    const we = new vscode.WorkspaceEdit();
    we.replace(editor.document.uri, toRange(edit.range), edit.newText); // wherever the cursor is
    await vscode.workspace.applyEdit(we);
  }

  private async runTask(): Promise<void> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return;
    const result = await client.sendRequest<{ sessionUri: string; edits: { uri: string; status: string }[] }>(
      'tether/tasks/run',
      { textDocument: { uri: editor.document.uri.toString() }, position: position(editor) },
    );
    const statuses = result.edits.map((e) => `${vscode.workspace.asRelativePath(vscode.Uri.parse(e.uri))}: ${e.status}`);
    vscode.window.showInformationMessage(
      `Tether task: ${statuses.join(', ') || 'no change'} (log: ${result.sessionUri})`,
    );
  }

  // Inline completions from the server (with tether.inference.endpoint set). A multi-line replacement (this
  // client opts into such ranges) is not handed to VS Code, which mishandles them: it becomes the preview.
  inlineProvider(): vscode.InlineCompletionItemProvider {
    return {
      provideInlineCompletionItems: async (document, pos, context, token) => {
        const client = this.client();
        if (!client) return [];
        const editor = vscode.window.activeTextEditor;
        const result = await client.sendRequest<{ items: { insertText: string; range?: Wire }[] } | null>(
          'textDocument/inlineCompletion',
          {
            textDocument: { uri: document.uri.toString() },
            position: { line: pos.line, character: pos.character },
            context: { triggerKind: context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 1 : 2 },
          },
          token,
        );
        const items: vscode.InlineCompletionItem[] = [];
        for (const item of result?.items ?? []) {
          const range = item.range ? toRange(item.range) : new vscode.Range(pos, pos);
          if (range.start.line !== range.end.line && editor && editor.document === document && item.range) {
            const blankFirst = range.start.character === 0 && document.lineAt(range.start.line).isEmptyOrWhitespace;
            const old = new vscode.Range(range.start.line + (blankFirst ? 1 : 0), 0, range.end.line, range.end.character);
            this.status.text = 'Tether: replacement pending (Tab / Escape)';
            await this.showReplacement(editor, {
              mode: 'replace',
              reason: 'inline completion',
              showVisualDiff: true,
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
