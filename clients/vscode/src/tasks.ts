// Inline tasks in VS Code: a `# @run <instruction>` line runs with Ctrl+Y (Cmd+Y) — only on such a line, so redo
// keeps working elsewhere — or from its "Run task" CodeLens. While it runs, a notification shows the server's
// progress with a Cancel button, and the lines the model is writing are highlighted; at the end a message says
// what happened to each file, with a link to the session log, and the changes stay marked for review
// (taskReview.ts): the whole task is one undo step, Accept / Reject per change or for all. Typing `@run ` shows
// how to go on.
import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, LanguageClient } from 'vscode-languageclient/node';
import { WorkDoneProgress } from 'vscode-languageclient/node';

import { request } from './rpc';
import { instructionAt, isTaskLine, summary } from './taskModel';
import { TaskReview } from './taskReview';
import type { RunResult } from './wire';

const writing = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});
const hint = vscode.window.createTextEditorDecorationType({
  after: { color: new vscode.ThemeColor('editorGhostText.foreground'), margin: '0 0 0 1ch' },
});

export class Tasks implements vscode.Disposable, vscode.CodeLensProvider {
  private running = new Map<string, vscode.Range[]>(); // uri -> lines written during a run
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly disposables: vscode.Disposable[] = [];

  readonly review: TaskReview;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly languages: () => string[],
  ) {
    this.review = new TaskReview(languages);
    this.disposables.push(
      this.review,
      writing,
      hint,
      this.lensesChanged,
      vscode.window.onDidChangeTextEditorSelection((e) => this.onLine(e.textEditor)),
      vscode.window.onDidChangeActiveTextEditor((editor) => editor && this.onLine(editor)),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
    );
    if (vscode.window.activeTextEditor) this.onLine(vscode.window.activeTextEditor);
  }

  commands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('tether.runTask', (line?: number) => this.run(line)),
      vscode.languages.registerCodeLensProvider(this.languages().map((language) => ({ language })), this),
      ...this.review.commands(),
    ];
  }

  /**
   * `workspace/applyEdit` for the client: while a task of ours runs, the text each file had before is kept for
   * the review, and an edit to a visible editor joins the task's single undo step; anything else is applied as
   * the language client would (same version check).
   */
  async applyEdit(client: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const edit = params.edit;
    const changes = edit.documentChanges ?? [];
    const ours = this.running.size > 0 && (params.label ?? '').startsWith('Tether');
    if (ours) {
      for (const c of changes) if ('textDocument' in c) await this.review.snapshot(c.textDocument.uri);
      for (const uri of Object.keys(edit.changes ?? {})) await this.review.snapshot(uri);
    }
    for (const c of changes) {
      if (!('textDocument' in c) || typeof c.textDocument.version !== 'number' || c.textDocument.version < 0) continue;
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(c.textDocument.uri).toString());
      if (document && document.version !== c.textDocument.version) return { applied: false };
    }
    const only = changes.length === 1 && !edit.changes ? changes[0] : undefined;
    if (ours && only && 'textDocument' in only) {
      const uri = vscode.Uri.parse(only.textDocument.uri).toString();
      const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);
      const edits = only.edits.map((e) => ({ range: client.protocol2CodeConverter.asRange(e.range), newText: e.newText }));
      if (editor && (await this.review.applyJoined(editor, edits))) return { applied: true };
    }
    return { applied: await vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(edit)) };
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const lenses: vscode.CodeLens[] = [];
    for (let line = 0; line < document.lineCount; line++) {
      if (isTaskLine(document.lineAt(line).text)) {
        const title = this.running.size ? '$(sync~spin) Tether task running…' : '$(play) Run task (Ctrl+Y)';
        lenses.push(new vscode.CodeLens(new vscode.Range(line, 0, line, 0), { title, command: 'tether.runTask', arguments: [line] }));
      }
    }
    return lenses;
  }

  /** Ctrl+Y only on a task line; a bare `@run ` says how to go on. */
  private onLine(editor: vscode.TextEditor): void {
    const line = editor.document.lineAt(editor.selection.active.line).text;
    void vscode.commands.executeCommand('setContext', 'tether.onTaskLine', isTaskLine(line));
    const bare = /@(run|task)\s+$/.test(line) && !isTaskLine(line);
    const at = editor.document.lineAt(editor.selection.active.line).range.end;
    editor.setDecorations(
      hint,
      bare ? [{ range: new vscode.Range(at, at), renderOptions: { after: { contentText: 'describe the change, then Ctrl+Y' } } }] : [],
    );
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const uri = e.document.uri.toString();
    const lines = this.running.get(uri);
    if (lines) {
      for (const change of e.contentChanges) {
        const added = change.text.split('\n').length - 1;
        lines.push(new vscode.Range(change.range.start.line, 0, change.range.start.line + added, 0));
      }
      this.highlight();
    }
    if (e.contentChanges.some((c) => c.text.includes('@') || c.text.includes('\n'))) this.lensesChanged.fire();
  }

  private highlight(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      editor.setDecorations(writing, this.running.get(editor.document.uri.toString()) ?? []);
    }
  }

  async run(line?: number): Promise<void> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return;
    const at = line ?? editor.selection.active.line;
    const instruction = instructionAt(editor.document.lineAt(at).text);
    if (!instruction) {
      vscode.window.setStatusBarMessage('Tether: this line holds no `@run <instruction>`', 5000);
      return;
    }
    const uri = editor.document.uri.toString();
    const token = `tether-task-${Date.now().toString(36)}`;
    this.running.set(uri, []);
    this.lensesChanged.fire();
    let result: RunResult | undefined;
    let failure: string | undefined;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Tether: ${instruction}`, cancellable: true },
      async (progress, cancel) => {
        const listening = client.onProgress(WorkDoneProgress.type, token, (value) => {
          if (value.kind !== 'end' && value.message) progress.report({ message: value.message });
        });
        const source = new vscode.CancellationTokenSource();
        const stop = cancel.onCancellationRequested(() => source.cancel());
        try {
          result = await request(
            client,
            'tether/tasks/run',
            { textDocument: { uri }, position: { line: at, character: 0 }, workDoneToken: token },
            source.token,
          );
        } catch (err) {
          failure = cancel.isCancellationRequested ? 'cancelled' : err instanceof Error ? err.message : String(err);
        } finally {
          stop.dispose();
          listening.dispose();
          source.dispose();
        }
      },
    );
    this.running.delete(uri);
    this.highlight();
    this.lensesChanged.fire();
    const reviewed = this.running.size ? [] : await this.review.finished();
    if (failure) {
      void vscode.window.showWarningMessage(`Tether task ${failure === 'cancelled' ? 'cancelled: the change being written was undone' : `failed: ${failure}`}`);
      return;
    }
    if (!result) return;
    const changes = reviewed.reduce((n, u) => n + this.review.count(u), 0);
    const text =
      `Tether task: ${summary(result, (u) => vscode.workspace.asRelativePath(vscode.Uri.parse(u)))}` +
      (changes ? ` — ${changes} change${changes === 1 ? '' : 's'} to review (one Ctrl+Z undoes the task)` : '');
    const picked = await vscode.window.showInformationMessage(text, ...(changes ? ['Accept All', 'Reject All'] : []), 'Open Log');
    if (picked === 'Open Log') await vscode.window.showTextDocument(vscode.Uri.parse(result.sessionUri), { preview: true });
    const command = { 'Accept All': 'tether.review.acceptAll', 'Reject All': 'tether.review.rejectAll' }[picked ?? ''];
    if (command) for (const u of reviewed) await vscode.commands.executeCommand(command, u);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
