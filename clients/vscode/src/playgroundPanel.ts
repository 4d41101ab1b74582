// The prompt playground panel: the active file's prompts (click one to go to it), the selected one and why,
// pin/unpin, an input per variable and the model with its temperature and max tokens (saved with
// `tether/playground/setSettings` and restored when the prompt is selected again), Run with the answer streamed
// in, Cancel, and the prompt's run history, two runs side by side. A run belongs to its prompt: the panel shows it
// (and its Cancel) only under that prompt, and a prompt on view shows its own last answer. The server decides which prompt is selected
// (`tether/playground/didChangeState`, from the cursor); the panel only shows it and sends what the user does.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { panelHtml } from './playgroundHtml';
import { inputsOf, insidePrompt, mergeInputs, mergeVariables, ModelInputs, PanelMessage, runParameters } from './playgroundModel';
import { request } from './rpc';
import type { PlaygroundState, StoredRun } from './wire';

export class PlaygroundPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private state: PlaygroundState | undefined;
  private shownPrompt: string | undefined;
  private running: vscode.CancellationTokenSource | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private renders = 0; // a render that awaited the server and is no longer the latest posts nothing

  constructor(private readonly client: () => LanguageClient | undefined) {}

  commands(): vscode.Disposable[] {
    return [vscode.commands.registerCommand('tether.playground.open', () => this.open())];
  }

  /** The server's state changed (also while the panel is closed: it is shown when opened). */
  onState(state: PlaygroundState): void {
    this.state = state;
    void this.render();
  }

  /** A piece of the running answer. */
  onOutput(delta: string): void {
    void this.panel?.webview.postMessage({ type: 'output', delta });
  }

  private async open(): Promise<void> {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return;
    }
    this.panel = vscode.window.createWebviewPanel(
      'tether.playground',
      'Prompt Playground',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, retainContextWhenHidden: true },
    );
    this.panel.webview.html = panelHtml(this.panel.webview.cspSource, nonce());
    this.panel.onDidDispose(() => {
      this.panel = undefined;
      this.shownPrompt = undefined;
      this.running?.cancel();
    });
    this.panel.webview.onDidReceiveMessage((message: PanelMessage) => this.received(message));
    const client = this.client();
    if (client && !this.state) {
      try {
        this.state = await request(client, 'tether/playground/getState', {});
        void this.render(); // the page may have said it is ready before the state came
      } catch (err) {
        this.error(err);
      }
    }
  }

  /** The page loaded (or reloaded): show everything again, saved inputs and history included. */
  private ready(): void {
    this.shownPrompt = undefined;
    void this.render();
  }

  private async render(): Promise<void> {
    const panel = this.panel;
    const client = this.client();
    if (!panel || !this.state) return;
    const state = this.state;
    const prompt = state.prompt;
    const mine = ++this.renders;
    let variables: Record<string, string> | undefined;
    let inputs: ModelInputs | undefined;
    let runs: StoredRun[] | undefined;
    if (prompt && client && prompt.promptId !== this.shownPrompt) {
      try {
        const saved = await request(client, 'tether/playground/getSettings', { promptId: prompt.promptId });
        variables = mergeVariables(saved, {}).variables as Record<string, string>;
        inputs = inputsOf(saved);
        runs = await request(client, 'tether/playground/runs', { promptId: prompt.promptId, limit: 10 });
      } catch (err) {
        this.error(err);
      }
    }
    if (mine !== this.renders) return;
    this.shownPrompt = prompt?.promptId;
    const defaults = { model: vscode.workspace.getConfiguration('tether.playground').get<string>('model') ?? '' };
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    const editorName = editor ? path.basename(editor.document.uri.path) : '';
    void panel.webview.postMessage({ type: 'state', state, variables, inputs, runs, defaults, editorName });
  }

  private async received(message: PanelMessage): Promise<void> {
    if (message.type === 'ready') {
      this.ready();
      return;
    }
    const client = this.client();
    const state = this.state;
    if (!client || !state) return;
    try {
      if (message.type === 'pin' && state.prompt) {
        this.onState(await request(client, 'tether/playground/pin', { fileId: state.prompt.fileId, promptId: state.prompt.promptId }));
      } else if (message.type === 'unpin') {
        this.onState(await request(client, 'tether/playground/unpin', {}));
      } else if (message.type === 'variables' && state.prompt) {
        this.saveLater(state.prompt.promptId, message.variables, message.inputs);
      } else if (message.type === 'run' && state.prompt) {
        await this.run(client, state.prompt.promptId, message.variables, message.inputs);
      } else if (message.type === 'reveal') {
        await this.reveal(client, state, message.promptId);
      } else if (message.type === 'cancel') {
        this.running?.cancel();
      }
    } catch (err) {
      this.error(err);
    }
  }

  /** A prompt clicked in the list: the cursor goes into it in its editor, which selects it (a pin moves to it). */
  private async reveal(client: LanguageClient, state: PlaygroundState, promptId: string): Promise<void> {
    const item = state.prompts.find((p) => p.promptId === promptId);
    if (!item || !state.file) return;
    if (state.pin && state.pin.promptId !== promptId) {
      this.onState(await request(client, 'tether/playground/pin', { fileId: item.fileId, promptId }));
    }
    const uri = vscode.Uri.parse(state.file.uri).toString();
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);
    const document = editor?.document ?? (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri)));
    const at = insidePrompt(item.range);
    const position = new vscode.Position(at.line, at.character);
    const shown = await vscode.window.showTextDocument(document, {
      viewColumn: editor?.viewColumn ?? vscode.ViewColumn.One,
      selection: new vscode.Range(position, position),
    });
    shown.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** Inputs are saved a moment after the user stops typing (and before a run). */
  private saveLater(promptId: string, variables: Record<string, string>, inputs?: ModelInputs): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => void this.save(promptId, variables, inputs).catch((err) => this.error(err)), 400);
  }

  private async save(promptId: string, variables: Record<string, string>, inputs?: ModelInputs): Promise<void> {
    const client = this.client();
    if (!client) return;
    const saved = await request(client, 'tether/playground/getSettings', { promptId });
    await request(client, 'tether/playground/setSettings', { promptId, settings: mergeInputs(mergeVariables(saved, variables), inputs) });
  }

  private async run(client: LanguageClient, promptId: string, variables: Record<string, string>, inputs?: ModelInputs): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await this.save(promptId, variables, inputs);
    this.running?.cancel();
    const running = new vscode.CancellationTokenSource();
    this.running = running;
    const anchor = this.state?.prompt?.promptId === promptId ? this.state.prompt.anchor : 'another prompt';
    void this.panel?.webview.postMessage({ type: 'running', promptId, anchor });
    try {
      const result = await request(client, 'tether/playground/run', { promptId, variables, ...runParameters(inputs) }, running.token);
      const runs = await request(client, 'tether/playground/runs', { promptId, limit: 10 });
      void this.panel?.webview.postMessage({ type: 'done', promptId, result, runs });
    } catch (err) {
      const cancelled = running.token.isCancellationRequested;
      void this.panel?.webview.postMessage({ type: 'failed', promptId, message: cancelled ? 'Cancelled.' : errorText(err) });
    } finally {
      if (this.running === running) this.running = undefined;
      running.dispose();
    }
  }

  private error(err: unknown): void {
    void this.panel?.webview.postMessage({ type: 'failed', message: errorText(err) });
  }

  dispose(): void {
    this.running?.cancel();
    this.panel?.dispose();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 32 }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
}
