// A finished task's changes, reviewed in the editor: the lines it wrote are green, each change has Accept and
// Reject above it (and Accept All / Reject All on the first), hovering a change shows the code it replaced, the
// status bar counts the changes left and `Show Task Changes as Diff` opens them side by side. The edits are
// already in the document: Accept only stops showing a change, Reject writes its old lines back in one edit, and
// Reject All puts the whole file back as it was before the task in one edit (one undo step).
//
// While a task streams, its edits to a visible editor are made by this module instead of the generic
// `workspace/applyEdit`, joined into a single undo step: one Ctrl+Z takes the whole task back.
import * as vscode from 'vscode';

import { accept, counts, diffLines, Hunk, hunkAt, lines, minimalEdit, reject, TextEdit } from './reviewModel';

const SCHEME = 'tether-before-task';

const added = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
  borderColor: new vscode.ThemeColor('editorGutter.addedBackground'),
  borderStyle: 'none none none solid',
  borderWidth: '0 0 0 3px',
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});
const removed = vscode.window.createTextEditorDecorationType({
  isWholeLine: true,
  borderColor: new vscode.ThemeColor('editorGutter.deletedBackground'),
  borderStyle: 'solid none none none',
  borderWidth: '2px 0 0 0',
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Left,
});
const removedNote = vscode.window.createTextEditorDecorationType({
  after: { color: new vscode.ThemeColor('editorGhostText.foreground'), margin: '0 0 0 2ch', fontStyle: 'italic' },
});

interface Review {
  base: string[];
  hunks: Hunk[];
}

function toRange(document: vscode.TextDocument, edit: TextEdit): vscode.Range {
  return new vscode.Range(document.positionAt(edit.start), document.positionAt(edit.end));
}

export class TaskReview implements vscode.Disposable, vscode.CodeLensProvider, vscode.HoverProvider, vscode.TextDocumentContentProvider {
  private readonly reviews = new Map<string, Review>();
  private readonly before = new Map<string, string>(); // uri -> text before the running task first touched it
  private readonly merging = new Set<string>(); // uris whose task edits are joined into one undo step
  private writing: string | undefined; // the uri a Reject is writing to
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.contentChanged.event;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 98);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly languages: () => string[]) {
    this.status.command = 'tether.review.actions';
    this.disposables.push(
      added,
      removed,
      removedNote,
      this.status,
      this.lensesChanged,
      this.contentChanged,
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.reviews.has(e.document.uri.toString())) this.refresh(e.document, e.reason);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri.toString())),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      vscode.window.onDidChangeActiveTextEditor(() => this.showStatus()),
    );
  }

  commands(): vscode.Disposable[] {
    const selector = this.languages().map((language) => ({ language }));
    return [
      vscode.commands.registerCommand('tether.review.accept', (uri?: string, line?: number) => this.acceptOne(uri, line)),
      vscode.commands.registerCommand('tether.review.reject', (uri?: string, line?: number) => this.rejectOne(uri, line)),
      vscode.commands.registerCommand('tether.review.acceptAll', (uri?: string) => this.acceptAll(uri)),
      vscode.commands.registerCommand('tether.review.rejectAll', (uri?: string) => this.rejectAll(uri)),
      vscode.commands.registerCommand('tether.review.diff', (uri?: string) => this.diff(uri)),
      vscode.commands.registerCommand('tether.review.actions', () => this.actions()),
      vscode.languages.registerCodeLensProvider(selector, this),
      vscode.languages.registerHoverProvider(selector, this),
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
    ];
  }

  // --- while a task runs ----------------------------------------------------------------------------------

  /** Remember a file's text before the running task's first edit to it. */
  async snapshot(uri: string): Promise<void> {
    if (this.before.has(uri)) return;
    try {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      if (!this.before.has(uri)) this.before.set(uri, this.reviews.get(uri)?.base.join('\n') ?? document.getText());
    } catch {
      // a file the task creates: nothing to compare with
    }
  }

  /** Make a task's edits in the visible editor of their document, joined to the task's earlier ones. */
  async applyJoined(editor: vscode.TextEditor, edits: { range: vscode.Range; newText: string }[]): Promise<boolean> {
    const uri = editor.document.uri.toString();
    const first = !this.merging.has(uri);
    try {
      const done = await editor.edit((builder) => edits.forEach((e) => builder.replace(e.range, e.newText)), {
        undoStopBefore: first,
        undoStopAfter: false,
      });
      if (done) this.merging.add(uri);
      return done;
    } catch {
      return false; // the editor was closed meanwhile: the generic way applies it
    }
  }

  /** The task ended: close its undo step, and review what it changed (nothing, when it was cancelled). */
  async finished(): Promise<string[]> {
    for (const uri of this.merging) {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);
      await editor?.edit(() => undefined, { undoStopBefore: false, undoStopAfter: true }).then(undefined, () => false);
    }
    this.merging.clear();
    const reviewed: string[] = [];
    for (const [uri, text] of this.before) {
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (!document || document.getText() === text) continue;
      this.reviews.set(uri, { base: lines(text), hunks: [] });
      this.refresh(document);
      if (this.count(uri)) reviewed.push(uri);
    }
    this.before.clear();
    return reviewed;
  }

  /** Changes left to review in a file. */
  count(uri: string): number {
    return this.reviews.get(uri)?.hunks.length ?? 0;
  }

  // --- showing ----------------------------------------------------------------------------------------------

  /**
   * The hunks as the document is now. Nothing left ends the review at the next edit of the user's own; until
   * then an undo (of the task, or of a Reject) brings the changes back under review.
   */
  private refresh(document: vscode.TextDocument, reason?: vscode.TextDocumentChangeReason, ours = false): void {
    const uri = document.uri.toString();
    const review = this.reviews.get(uri);
    if (!review) return;
    review.hunks = diffLines(review.base, lines(document.getText()));
    if (!review.hunks.length && !ours && reason === undefined && this.writing !== uri) {
      this.forget(uri); // nothing left and the user typed: that typing is not the task's
      return;
    }
    this.decorate();
    this.lensesChanged.fire();
    this.contentChanged.fire(this.beforeUri(document.uri));
    this.showStatus();
  }

  private decorate(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const hunks = this.reviews.get(editor.document.uri.toString())?.hunks ?? [];
      const last = editor.document.lineCount - 1;
      editor.setDecorations(
        added,
        hunks.filter((h) => h.newLines.length).map((h) => new vscode.Range(h.newStart, 0, h.newStart + h.newLines.length - 1, 0)),
      );
      const gone = hunks.filter((h) => h.oldLines.length);
      editor.setDecorations(removed, gone.map((h) => new vscode.Range(Math.min(h.newStart, last), 0, Math.min(h.newStart, last), 0)));
      editor.setDecorations(
        removedNote,
        gone
          .filter((h) => !h.newLines.length)
          .map((h) => {
            const line = editor.document.lineAt(Math.min(h.newStart, last));
            const text = `${h.oldLines.length} line${h.oldLines.length === 1 ? '' : 's'} removed here (hover to see them)`;
            return { range: new vscode.Range(line.range.end, line.range.end), renderOptions: { after: { contentText: text } } };
          }),
      );
    }
  }

  private showStatus(): void {
    const editor = vscode.window.activeTextEditor;
    const n = editor ? this.count(editor.document.uri.toString()) : 0;
    void vscode.commands.executeCommand('setContext', 'tether.reviewing', n > 0);
    if (!n) {
      this.status.hide();
      return;
    }
    this.status.text = `$(diff) Tether task: ${n} change${n === 1 ? '' : 's'} to review`;
    this.status.tooltip = 'Accept or reject the task’s changes';
    this.status.show();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const uri = document.uri.toString();
    const hunks = this.reviews.get(uri)?.hunks ?? [];
    const last = document.lineCount - 1;
    const lenses: vscode.CodeLens[] = [];
    hunks.forEach((h, k) => {
      const line = Math.min(h.newStart, last);
      const at = new vscode.Range(line, 0, line, 0);
      lenses.push(
        new vscode.CodeLens(at, { title: '$(check) Accept', command: 'tether.review.accept', arguments: [uri, line] }),
        new vscode.CodeLens(at, { title: '$(discard) Reject', command: 'tether.review.reject', arguments: [uri, line] }),
        new vscode.CodeLens(at, { title: `$(diff) ${counts(h)}`, command: 'tether.review.diff', arguments: [uri], tooltip: 'Show the task’s changes as a diff' }),
      );
      if (k === 0 && hunks.length > 1) {
        lenses.push(
          new vscode.CodeLens(at, { title: `Accept All (${hunks.length})`, command: 'tether.review.acceptAll', arguments: [uri] }),
          new vscode.CodeLens(at, { title: 'Reject All', command: 'tether.review.rejectAll', arguments: [uri] }),
        );
      }
    });
    return lenses;
  }

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const uri = document.uri.toString();
    const hunks = this.reviews.get(uri)?.hunks ?? [];
    const k = hunkAt(hunks, Math.min(position.line, document.lineCount - 1));
    if (k < 0) return undefined;
    const h = hunks[k];
    const args = encodeURIComponent(JSON.stringify([uri, h.newStart]));
    const text = new vscode.MarkdownString();
    text.isTrusted = { enabledCommands: ['tether.review.accept', 'tether.review.reject', 'tether.review.diff'] };
    text.supportThemeIcons = true;
    if (h.oldLines.length) {
      text.appendMarkdown(`**Tether task** — before the task this was:\n\n`);
      text.appendCodeblock(h.oldLines.join('\n'), document.languageId);
    } else {
      text.appendMarkdown(`**Tether task** — added by the task.\n\n`);
    }
    text.appendMarkdown(
      `[$(check) Accept](command:tether.review.accept?${args}) · [$(discard) Reject](command:tether.review.reject?${args}) · ` +
        `[$(diff) Diff](command:tether.review.diff?${encodeURIComponent(JSON.stringify([uri]))})`,
    );
    return new vscode.Hover(text);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reviews.get(uri.query)?.base.join('\n') ?? '';
  }

  private beforeUri(uri: vscode.Uri): vscode.Uri {
    return uri.with({ scheme: SCHEME, query: uri.toString() });
  }

  // --- acting -----------------------------------------------------------------------------------------------

  /** The reviewed document and the hunk meant: the arguments of a CodeLens or hover, else the cursor's. */
  private target(uri?: string, line?: number): { document: vscode.TextDocument; review: Review; index: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    const key = uri ?? editor?.document.uri.toString();
    const review = key ? this.reviews.get(key) : undefined;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!review || !document) return undefined;
    const at = line ?? (editor && editor.document === document ? editor.selection.active.line : -1);
    const index = hunkAt(review.hunks, Math.min(at, document.lineCount - 1));
    return { document, review, index };
  }

  private async acceptOne(uri?: string, line?: number): Promise<void> {
    const t = this.target(uri, line);
    if (!t || t.index < 0) return this.say('no task change here');
    t.review.base = accept(t.review.base, t.review.hunks[t.index]);
    this.refresh(t.document);
  }

  private async rejectOne(uri?: string, line?: number): Promise<void> {
    const t = this.target(uri, line);
    if (!t || t.index < 0) return this.say('no task change here');
    const edit = reject(lines(t.document.getText()), t.review.hunks[t.index]);
    if (edit) await this.write(t.document, edit);
    this.refresh(t.document, undefined, true);
  }

  private async acceptAll(uri?: string): Promise<void> {
    const t = this.target(uri);
    if (!t) return this.say('no task changes to accept');
    this.forget(t.document.uri.toString());
  }

  private async rejectAll(uri?: string): Promise<void> {
    const t = this.target(uri);
    if (!t) return this.say('no task changes to reject');
    const now = t.document.getText();
    const base = t.review.base.join('\n');
    const edit = minimalEdit(now, base);
    if (edit) await this.write(t.document, edit);
    this.refresh(t.document, undefined, true); // nothing left: hidden, and back if the user undoes the rejection
  }

  private async diff(uri?: string): Promise<void> {
    const t = this.target(uri);
    if (!t) return this.say('no task changes to show');
    const name = vscode.workspace.asRelativePath(t.document.uri);
    await vscode.commands.executeCommand('vscode.diff', this.beforeUri(t.document.uri), t.document.uri, `${name}: before the task ↔ now`);
  }

  private async actions(): Promise<void> {
    const picked = await vscode.window.showQuickPick(
      [
        { label: '$(check-all) Accept All', command: 'tether.review.acceptAll' },
        { label: '$(discard) Reject All', command: 'tether.review.rejectAll' },
        { label: '$(diff) Show as Diff', command: 'tether.review.diff' },
      ],
      { placeHolder: 'The task’s changes in this file' },
    );
    if (picked) await vscode.commands.executeCommand(picked.command);
  }

  /** One edit, one undo step of its own. */
  private async write(document: vscode.TextDocument, edit: TextEdit): Promise<void> {
    const editor = vscode.window.visibleTextEditors.find((e) => e.document === document);
    const range = toRange(document, edit);
    this.writing = document.uri.toString();
    try {
      if (editor) {
        await editor.edit((b) => b.replace(range, edit.text), { undoStopBefore: true, undoStopAfter: true });
      } else {
        const we = new vscode.WorkspaceEdit();
        we.replace(document.uri, range, edit.text);
        await vscode.workspace.applyEdit(we);
      }
    } finally {
      this.writing = undefined;
    }
  }

  private forget(uri: string): void {
    if (!this.reviews.delete(uri)) return;
    this.decorate();
    this.lensesChanged.fire();
    this.showStatus();
  }

  private say(text: string): void {
    vscode.window.setStatusBarMessage(`Tether: ${text}`, 5000);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
