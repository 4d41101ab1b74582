// Markers in VS Code: a gutter icon by kind on each marker's first line, a hover with the note, its author and
// actions, the CodeLens that opens a marker, the Markers view of the whole workspace in Tether's own view
// container (grouped by file, missing markers with their reason, the whole note in a tooltip, dates in the
// user's locale and how long ago), and add / edit / change kind / delete. What is shown is re-read from the
// server when it says markers moved (`tether/markers/didChange`), after our own changes, on save, and a moment
// after typing stops (the server carries markers through unsaved edits).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { KINDS, kindIcon, localDate, noteTitle, relativeTime, treeDescription } from './markerModel';
import { request } from './rpc';
import type { Marker, MarkersUpdateParams } from './wire';
import { vscodeRange, wireRange } from './wireRanges';

class FileNode {
  constructor(
    readonly uri: string,
    readonly markers: Marker[],
  ) {}
}

class MarkerNode {
  constructor(readonly marker: Marker) {}
}

type Node = FileNode | MarkerNode;

export class Markers implements vscode.Disposable, vscode.TreeDataProvider<Node>, vscode.HoverProvider {
  private readonly byUri = new Map<string, Marker[]>();
  private files: FileNode[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly gutter: Map<string, vscode.TextEditorDecorationType>;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly client: () => LanguageClient | undefined,
    extensionUri: vscode.Uri,
    private readonly languages: () => string[],
  ) {
    this.gutter = new Map(
      KINDS.map((kind) => [
        kind,
        vscode.window.createTextEditorDecorationType({
          gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', `marker-${kind}.svg`),
          gutterIconSize: '80%',
          overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.infoForeground'),
          overviewRulerLane: vscode.OverviewRulerLane.Left,
        }),
      ]),
    );
    this.disposables.push(
      ...this.gutter.values(),
      this.changed,
      vscode.window.createTreeView('tetherMarkers', { treeDataProvider: this, showCollapseAll: true }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorateAll()),
      vscode.window.onDidChangeActiveTextEditor((editor) => editor && void this.refreshDocument(editor.document.uri.toString())),
      vscode.workspace.onDidSaveTextDocument((d) => void this.refreshDocument(d.uri.toString())),
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && this.refreshSoon(e.document.uri.toString())),
    );
    // "5 minutes ago" gets older: the view is redrawn every minute (from what it holds, nothing is asked)
    const ticking = setInterval(() => this.files.length && this.changed.fire(undefined), 60_000);
    this.disposables.push({ dispose: () => clearInterval(ticking) });
  }

  commands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('tether.markers.add', () => this.add()),
      vscode.commands.registerCommand('tether.addMarker', () => this.add()),
      vscode.commands.registerCommand('tether.markers.show', (arg?: string | MarkerNode) => this.show(arg)),
      vscode.commands.registerCommand('tether.showMarkers', () => vscode.commands.executeCommand('tetherMarkers.focus')),
      vscode.commands.registerCommand('tether.markers.edit', (arg?: string | MarkerNode) => this.edit(arg)),
      vscode.commands.registerCommand('tether.markers.changeKind', (arg?: string | MarkerNode) => this.changeKind(arg)),
      vscode.commands.registerCommand('tether.markers.delete', (arg?: string | MarkerNode) => this.remove(arg)),
      vscode.commands.registerCommand('tether.markers.refresh', () => this.refreshAll()),
      vscode.languages.registerHoverProvider(this.languages().map((language) => ({ language })), this),
    ];
  }

  /** The server is up (again): read everything. */
  async started(): Promise<void> {
    await this.refreshAll();
  }

  /** `tether/markers/didChange`: these files' markers moved for a reason of the server's own. */
  async serverChanged(uris: string[]): Promise<void> {
    for (const uri of uris) await this.refreshDocument(uri, false);
    await this.refreshWorkspace();
  }

  // --- reading ---------------------------------------------------------------------------------------------

  async refreshAll(): Promise<void> {
    await this.refreshWorkspace();
    for (const editor of vscode.window.visibleTextEditors) await this.refreshDocument(editor.document.uri.toString(), false);
  }

  private refreshSoon(uri: string): void {
    const old = this.timers.get(uri);
    if (old) clearTimeout(old);
    this.timers.set(uri, setTimeout(() => {
      this.timers.delete(uri);
      void this.refreshDocument(uri);
    }, 400));
  }

  private async refreshWorkspace(): Promise<void> {
    const client = this.client();
    if (!client || !vscode.workspace.workspaceFolders?.length) return;
    try {
      const found = await request(client, 'tether/markers/listWorkspace', {});
      this.files = found.files.map((f) => new FileNode(f.uri, f.markers));
      for (const f of found.files) if (!this.isOpen(f.uri)) this.byUri.set(f.uri, f.markers);
    } catch (err) {
      vscode.window.setStatusBarMessage(`Tether: could not list the markers (${message(err)})`, 5000);
    }
    this.changed.fire(undefined);
  }

  private async refreshDocument(uri: string, andTree = true): Promise<void> {
    const client = this.client();
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (!client || !document || !this.languages().includes(document.languageId)) return;
    try {
      const { markers } = await request(client, 'tether/markers/list', { textDocument: { uri } });
      this.byUri.set(uri, markers);
      const file = this.files.find((f) => f.uri === uri);
      if (file) file.markers.splice(0, file.markers.length, ...markers);
      else if (markers.length) this.files.push(new FileNode(uri, markers));
    } catch (err) {
      vscode.window.setStatusBarMessage(`Tether: could not list the markers (${message(err)})`, 5000);
      return;
    }
    this.decorateAll();
    if (andTree) this.changed.fire(undefined);
  }

  private isOpen(uri: string): boolean {
    return vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri);
  }

  private decorateAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const markers = this.byUri.get(editor.document.uri.toString()) ?? [];
      for (const [kind, decoration] of this.gutter) {
        const lines = markers
          .filter((m) => m.kind === kind && m.range)
          .map((m) => new vscode.Range(m.range!.start.line, 0, m.range!.start.line, 0));
        editor.setDecorations(decoration, lines);
      }
    }
  }

  // --- the view ----------------------------------------------------------------------------------------------

  getChildren(node?: Node): Node[] {
    if (!node) return this.files.filter((f) => f.markers.length).sort((a, b) => a.uri.localeCompare(b.uri));
    return node instanceof FileNode ? node.markers.map((m) => new MarkerNode(m)) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node instanceof FileNode) {
      const uri = vscode.Uri.parse(node.uri);
      const item = new vscode.TreeItem(path.basename(uri.path), vscode.TreeItemCollapsibleState.Expanded);
      item.resourceUri = uri;
      item.description = `${vscode.workspace.asRelativePath(uri, false).replace(/[^/]*$/, '')} ${node.markers.length}`.trim();
      item.contextValue = 'tetherMarkerFile';
      return item;
    }
    const m = node.marker;
    const item = new vscode.TreeItem(noteTitle(m.note), vscode.TreeItemCollapsibleState.None);
    const ago = relativeTime(m.createdAt, Date.now(), vscode.env.language);
    item.description = ago ? `${treeDescription(m)} · ${ago}` : treeDescription(m);
    item.iconPath = new vscode.ThemeIcon(m.range ? kindIcon(m.kind) : 'warning');
    item.tooltip = this.card(m);
    item.contextValue = 'tetherMarker';
    item.command = { command: 'tether.markers.show', title: 'Open Marker', arguments: [m.id] };
    item.id = m.id;
    return item;
  }

  /** The whole note with who wrote it and when, for the view's tooltip. */
  private card(m: Marker): vscode.MarkdownString {
    const text = new vscode.MarkdownString(undefined, true);
    text.appendMarkdown(`$(${kindIcon(m.kind)}) **${m.kind}** — ${escape(m.author)}, ${escape(this.when(m.createdAt))}\n\n`);
    text.appendText(m.note);
    text.appendMarkdown(`\n\n---\n\n${escape(vscode.workspace.asRelativePath(vscode.Uri.parse(m.uri)))} · ${escape(treeDescription(m))}`);
    return text;
  }

  /** `Nov 23, 2026, 10:00 AM (5 minutes ago)`, in the user's locale and language. */
  private when(iso: string): string {
    const ago = relativeTime(iso, Date.now(), vscode.env.language);
    return `${localDate(iso, vscode.env.language)}${ago ? ` (${ago})` : ''}`;
  }

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const here = (this.byUri.get(document.uri.toString()) ?? []).filter((m) => m.range && vscodeRange(m.range).contains(position));
    if (!here.length) return undefined;
    const text = new vscode.MarkdownString(undefined, true);
    text.isTrusted = { enabledCommands: ['tether.markers.edit', 'tether.markers.changeKind', 'tether.markers.delete'] };
    for (const m of here) {
      const args = encodeURIComponent(JSON.stringify([m.id]));
      text.appendMarkdown(`$(${kindIcon(m.kind)}) **${m.kind}** — ${escape(m.author)}, ${escape(this.when(m.createdAt))}\n\n`);
      text.appendText(`${m.note}\n\n`);
      text.appendMarkdown(
        `[Edit](command:tether.markers.edit?${args}) · [Change kind](command:tether.markers.changeKind?${args}) · ` +
          `[Delete](command:tether.markers.delete?${args})\n\n---\n\n`,
      );
    }
    return new vscode.Hover(text);
  }

  // --- actions -----------------------------------------------------------------------------------------------

  private find(arg?: string | MarkerNode): Marker | undefined {
    if (arg instanceof MarkerNode) return arg.marker;
    if (typeof arg === 'string') {
      for (const list of [...this.byUri.values(), ...this.files.map((f) => f.markers)]) {
        const found = list.find((m) => m.id === arg);
        if (found) return found;
      }
      return undefined;
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    return (this.byUri.get(editor.document.uri.toString()) ?? []).find(
      (m) => m.range && vscodeRange(m.range).contains(editor.selection.active),
    );
  }

  private async add(): Promise<void> {
    const client = this.client();
    const editor = vscode.window.activeTextEditor;
    if (!client || !editor) return;
    const kind = await vscode.window.showQuickPick(
      KINDS.map((k) => ({ label: k, iconPath: new vscode.ThemeIcon(kindIcon(k)) })),
      { placeHolder: 'Kind of marker' },
    );
    if (!kind) return;
    const note = await vscode.window.showInputBox({ prompt: 'Note', placeHolder: 'What should be remembered about this code?' });
    if (!note) return;
    const uri = editor.document.uri.toString();
    try {
      await request(client, 'tether/markers/create', {
        textDocument: { uri },
        range: wireRange(editor.selection),
        note,
        kind: kind.label,
      });
    } catch (err) {
      void vscode.window.showErrorMessage(`Tether: the marker was not added (${message(err)})`);
      return;
    }
    await this.refreshDocument(uri);
    await this.refreshWorkspace();
  }

  /** Open the marker's code (CodeLens, the view) and offer what can be done with it. */
  private async show(arg?: string | MarkerNode): Promise<void> {
    const marker = this.find(arg);
    if (!marker) {
      vscode.window.setStatusBarMessage('Tether: that marker is gone', 5000);
      return;
    }
    if (marker.range) {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(marker.uri));
      const editor = await vscode.window.showTextDocument(document, { preview: false });
      const r = vscodeRange(marker.range);
      editor.selection = new vscode.Selection(r.start, r.end);
      editor.revealRange(r, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
    const where = marker.range ? `line ${marker.range.start.line + 1}` : `missing: ${marker.missingReason}`;
    const action = await vscode.window.showQuickPick(['Edit note', 'Change kind', 'Delete'], {
      title: `${marker.kind}: ${noteTitle(marker.note)} (${where})`,
      placeHolder: `${marker.author}, ${this.when(marker.createdAt)}`,
    });
    if (action === 'Edit note') await this.edit(marker.id);
    if (action === 'Change kind') await this.changeKind(marker.id);
    if (action === 'Delete') await this.remove(marker.id);
  }

  private async edit(arg?: string | MarkerNode): Promise<void> {
    const marker = this.find(arg);
    if (!marker) return;
    const note = await vscode.window.showInputBox({ prompt: 'Note', value: marker.note });
    if (note === undefined || note === marker.note) return;
    await this.update({ id: marker.id, note }, marker.uri);
  }

  private async changeKind(arg?: string | MarkerNode): Promise<void> {
    const marker = this.find(arg);
    if (!marker) return;
    const kind = await vscode.window.showQuickPick(
      KINDS.map((k) => ({ label: k, description: k === marker.kind ? 'current' : undefined })),
      { placeHolder: 'Kind of marker' },
    );
    if (!kind || kind.label === marker.kind) return;
    await this.update({ id: marker.id, kind: kind.label }, marker.uri);
  }

  private async remove(arg?: string | MarkerNode): Promise<void> {
    const marker = this.find(arg);
    const client = this.client();
    if (!marker || !client) return;
    const sure = await vscode.window.showWarningMessage(`Delete the marker "${noteTitle(marker.note)}"?`, 'Delete');
    if (sure !== 'Delete') return;
    try {
      await request(client, 'tether/markers/delete', { id: marker.id });
    } catch (err) {
      void vscode.window.showErrorMessage(`Tether: the marker was not deleted (${message(err)})`);
    }
    await this.refreshDocument(marker.uri);
    await this.refreshWorkspace();
  }

  private async update(params: MarkersUpdateParams, uri: string): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      await request(client, 'tether/markers/update', params);
    } catch (err) {
      void vscode.window.showErrorMessage(`Tether: the marker was not changed (${message(err)})`);
    }
    await this.refreshDocument(uri);
    await this.refreshWorkspace();
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const d of this.disposables) d.dispose();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
