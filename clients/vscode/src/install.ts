// Installing Tether for the user when no server is found: a virtual environment in the extension's own storage,
// made with a Python 3.11+ that is already there (the Python extension's interpreter, else `python3` on PATH),
// and the wheel shipped inside the .vsix installed into it (its dependencies come from the package index pip is
// configured with). Every step is written to the log; a failure says which step and why.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The wheel inside the extension, if this build ships one. */
export function bundledWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'server');
  if (!fs.existsSync(dir)) return undefined;
  const wheel = fs.readdirSync(dir).find((f) => /^tether_lsp-.*\.whl$/.test(f));
  return wheel ? path.join(dir, wheel) : undefined;
}

export function managedPython(storage: string): string {
  return path.join(storage, 'venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
}

function run(program: string, args: string[], log: vscode.OutputChannel, timeoutMs: number): Promise<string> {
  log.appendLine(`install: ${program} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (stdout) log.append(stdout);
      if (stderr) log.append(stderr);
      if (err) reject(new Error(`${path.basename(program)} ${args[0] ?? ''} failed: ${(stderr || err.message).trim().split('\n').pop()}`));
      else resolve(stdout);
    });
  });
}

/** A Python 3.11+ to make the environment with: the candidates in order, the first that qualifies. */
async function basePython(candidates: (string | undefined)[], log: vscode.OutputChannel): Promise<string> {
  for (const python of candidates) {
    if (!python) continue;
    try {
      const ok = await run(python, ['-c', 'import sys, venv; print(sys.version_info >= (3, 11))'], log, 20000);
      if (ok.trim() === 'True') return python;
      log.appendLine(`install: ${python} is older than Python 3.11`);
    } catch (err) {
      log.appendLine(`install: ${python} cannot be used (${err instanceof Error ? err.message : err})`);
    }
  }
  throw new Error('no Python 3.11 or newer was found (select one in the Python extension, or put python3 on PATH)');
}

/** Make the environment and install the wheel; returns the environment's python. */
export async function installManaged(
  wheel: string,
  storage: string,
  candidates: (string | undefined)[],
  log: vscode.OutputChannel,
): Promise<string> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Tether: installing the language server', cancellable: false },
    async (progress) => {
      fs.mkdirSync(storage, { recursive: true });
      progress.report({ message: 'finding Python 3.11+' });
      const python = await basePython(candidates, log);
      progress.report({ message: 'creating the environment' });
      await run(python, ['-m', 'venv', path.join(storage, 'venv')], log, 120000);
      const venvPython = managedPython(storage);
      progress.report({ message: `installing ${path.basename(wheel)}` });
      await run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel], log, 600000);
      await run(venvPython, ['-c', 'import tether_lsp'], log, 30000);
      return venvPython;
    },
  );
}
