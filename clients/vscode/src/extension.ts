// Tether for VS Code: finds and starts tether-lsp for the languages it parses, keeps the playground informed of
// the active editor and cursor, and adds the features' commands. `Tether: Restart Server` and
// `Tether: Show Log` are always there, also when the server could not start.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApplyWorkspaceEditRequest, LanguageClient, RevealOutputChannelOn } from 'vscode-languageclient/node';

import { Actions } from './actions';
import { discover, Launch, notFoundMessage, Probe } from './discovery';
import { bundledWheel, installManaged, managedPython } from './install';
import { Markers } from './markers';
import { PlaygroundPanel } from './playgroundPanel';
import { multilineRanges, ReplacementPreview } from './replacementPreview';
import { notify, onNotification } from './rpc';
import { Selectors } from './selectors';
import { LogDedup } from './serverLog';
import { forServer } from './settingsModel';
import { Tasks } from './tasks';
import { cursorOf } from './wireRanges';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let languages: string[] = [];
let playground: PlaygroundPanel;
let markers: Markers;
let tasks: Tasks;

/**
 * The channel the language client writes to: its stderr part (`append`) without the records that also come as
 * `window/logMessage` (`appendLine`), so each line is there once.
 */
function onceEach(channel: vscode.OutputChannel): vscode.OutputChannel {
  const dedup = new LogDedup();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    timer = undefined;
    const out = dedup.due(Date.now());
    if (out) channel.append(out);
    schedule();
  };
  const schedule = () => {
    if (!timer && dedup.pending()) timer = setTimeout(tick, 250);
  };
  return {
    get name() {
      return channel.name;
    },
    append(value: string) {
      const out = dedup.stderr(value, Date.now());
      if (out) channel.append(out);
      schedule();
    },
    appendLine(value: string) {
      dedup.message(value, Date.now());
      channel.appendLine(value);
    },
    replace: (value: string) => channel.replace(value),
    clear: () => channel.clear(),
    show: (a?: boolean | vscode.ViewColumn, b?: boolean) => (typeof a === 'boolean' ? channel.show(a) : channel.show(a, b)),
    hide: () => channel.hide(),
    dispose: () => {
      if (timer) clearTimeout(timer);
      const out = dedup.due(Date.now(), true);
      if (out) channel.append(out);
    },
  };
}

/** The languages the server parses: the extension activates on exactly these (package.json, generated). */
function languageIds(context: vscode.ExtensionContext): string[] {
  const events: string[] = context.extension.packageJSON.activationEvents ?? [];
  return events.filter((e) => e.startsWith('onLanguage:')).map((e) => e.slice('onLanguage:'.length));
}

/** The server's `tether` section: every tether.* setting but the extension's own (tether.server.*). */
function serverSettings(): Record<string, unknown> {
  return forServer(JSON.parse(JSON.stringify(vscode.workspace.getConfiguration('tether'))) as Record<string, unknown>);
}

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function probe(context: vscode.ExtensionContext): Probe {
  const config = vscode.workspace.getConfiguration('tether.server');
  return {
    settingPath: config.get<string | null>('path') ?? null,
    settingArgs: config.get<string[]>('args') ?? [],
    onPath,
    async pythonExtensionInterpreter() {
      const python = vscode.extensions.getExtension('ms-python.python');
      if (!python) return undefined;
      try {
        const api = python.isActive ? python.exports : await python.activate();
        const env = api?.environments?.getActiveEnvironmentPath?.();
        const resolved = env ? await api.environments.resolveEnvironment(env) : undefined;
        return resolved?.executable?.uri?.fsPath ?? env?.path;
      } catch (err) {
        output.appendLine(`the Python extension did not say which interpreter is selected: ${err}`);
        return undefined;
      }
    },
    hasTether(python: string) {
      return new Promise((resolve) => {
        execFile(python, ['-c', 'import tether_lsp'], { timeout: 20000 }, (err) => resolve(!err));
      });
    },
    managedEnvironment() {
      const python = managedPython(context.globalStorageUri.fsPath);
      return fs.existsSync(python) ? python : undefined;
    },
  };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  status.text = '$(sync~spin) Tether: starting';
  const found = await discover(probe(context));
  for (const line of found.tried) output.appendLine(`server: ${line}`);
  if (!found.launch) {
    status.text = '$(error) Tether: no server';
    const text = notFoundMessage(found.tried);
    output.appendLine(text);
    const wheel = bundledWheel(context.extensionPath);
    const actions = wheel ? ['Install Tether', 'Open Settings', 'Show Log'] : ['Open Settings', 'Show Log'];
    void vscode.window.showErrorMessage(text, ...actions).then(async (choice) => {
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'tether.server');
      if (choice === 'Show Log') output.show();
      if (choice === 'Install Tether' && wheel) await install(context, wheel);
    });
    return;
  }
  const launch: Launch = found.launch;
  output.appendLine(`server: starting ${launch.command} ${launch.args.join(' ')} (${launch.how})`);
  const selector = languages.map((language) => ({ language }));
  client = new LanguageClient(
    'tether',
    'Tether',
    { command: launch.command, args: launch.args },
    {
      documentSelector: selector,
      outputChannel: onceEach(output),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { tether: serverSettings() },
      synchronize: { configurationSection: 'tether' },
      middleware: {
        workspace: {
          configuration: (params) => params.items.map((item) => (item.section === 'tether' ? serverSettings() : null)),
        },
      },
    },
  );
  client.registerFeature(multilineRanges);
  const started = client;
  started.onRequest(ApplyWorkspaceEditRequest.type, (params) => tasks.applyEdit(started, params));
  onNotification(client, 'tether/playground/didChangeState', (state) => {
    status.text = state.prompt ? `Tether: ${state.prompt.anchor}` : 'Tether: no prompt';
    playground.onState(state);
  });
  onNotification(client, 'tether/playground/didRunOutput', (output) => playground.onOutput(output.delta));
  onNotification(client, 'tether/markers/didChange', (params) => void markers.serverChanged(params.uris));
  try {
    await client.start();
  } catch (err) {
    status.text = '$(error) Tether: failed';
    const text =
      `Tether: the server (${launch.how}) did not start: ${err instanceof Error ? err.message : err}. ` +
      'Check `tether.server.path`/`args`, or run `tether-lsp --version` in a terminal.';
    output.appendLine(text);
    client = undefined;
    void vscode.window.showErrorMessage(text, 'Show Log').then((c) => c && output.show());
    return;
  }
  status.text = 'Tether: ready';
  status.tooltip = `Tether server: ${launch.how}`;
  void markers.started();
  const editor = vscode.window.activeTextEditor;
  if (editor) sendActive(editor);
}

/** Install the bundled wheel into the extension's own environment, then start the server from it. */
async function install(context: vscode.ExtensionContext, wheel: string): Promise<void> {
  const interpreter = await probe(context).pythonExtensionInterpreter();
  try {
    await installManaged(wheel, context.globalStorageUri.fsPath, [interpreter, onPath('python3'), onPath('python')], output);
  } catch (err) {
    const text = `Tether: the installation failed: ${err instanceof Error ? err.message : err}`;
    output.appendLine(text);
    void vscode.window.showErrorMessage(text, 'Show Log').then((c) => c && output.show());
    return;
  }
  output.appendLine('install: done');
  await start(context);
}

function sendActive(editor: vscode.TextEditor): void {
  if (!client || !languages.includes(editor.document.languageId)) return;
  void notify(client, 'tether/editor/didChangeActiveEditor', {
    textDocument: { uri: editor.document.uri.toString() },
    position: cursorOf(editor),
  });
}

function sendCursor(editor: vscode.TextEditor): void {
  if (!client || !languages.includes(editor.document.languageId)) return;
  void notify(client, 'tether/editor/didChangeCursor', {
    textDocument: { uri: editor.document.uri.toString() },
    position: cursorOf(editor),
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  languages = languageIds(context);
  output = vscode.window.createOutputChannel('Tether');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  status.text = 'Tether';
  status.command = 'tether.showLog';
  status.show();
  const current = () => client;
  const selectors = new Selectors(current);
  const actions = new Actions(current, selectors);
  const replacementPreview = new ReplacementPreview(current);
  playground = new PlaygroundPanel(current);
  markers = new Markers(current, context.extensionUri, () => languages);
  tasks = new Tasks(current, () => languages);
  context.subscriptions.push(
    output,
    status,
    selectors,
    ...selectors.commands(),
    actions,
    ...actions.commands(),
    ...replacementPreview.commands(),
    playground,
    ...playground.commands(),
    markers,
    ...markers.commands(),
    tasks,
    ...tasks.commands(),
    vscode.commands.registerCommand('tether.restartServer', async () => {
      if (client) {
        const old = client;
        client = undefined;
        await old.stop().catch((err) => output.appendLine(`server: stopping failed: ${err}`));
      }
      await start(context);
    }),
    vscode.commands.registerCommand('tether.showLog', () => output.show()),
    vscode.languages.registerInlineCompletionItemProvider(
      languages.map((language) => ({ language })),
      replacementPreview.inlineProvider(),
    ),
    vscode.window.onDidChangeActiveTextEditor((editor) => editor && sendActive(editor)),
    vscode.window.onDidChangeTextEditorSelection((e) => sendCursor(e.textEditor)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tether.server')) {
        void vscode.window
          .showInformationMessage('Tether: the server settings changed.', 'Restart Server')
          .then((c) => c && vscode.commands.executeCommand('tether.restartServer'));
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
