// How the extension finds the server, in order: the `tether.server.path` setting (with `tether.server.args`);
// `tether-lsp` on PATH; the Python extension's selected interpreter with `-m tether_lsp`, when Tether is
// installed there; the extension-managed environment (installed from the wheel inside the .vsix). Pure: the
// checks are passed in, so the order is unit-tested.

export interface Launch {
  command: string;
  args: string[];
  how: string; // for the log and the error message
}

export interface Probe {
  settingPath: string | null;
  settingArgs: string[];
  onPath(program: string): string | undefined; // the full path when found
  pythonExtensionInterpreter(): Promise<string | undefined>;
  hasTether(python: string): Promise<boolean>;
  managedEnvironment(): string | undefined; // its python, when the extension installed Tether before
}

export interface Found {
  launch?: Launch;
  tried: string[]; // what was looked at, in order: the failure message lists it
}

export async function discover(probe: Probe): Promise<Found> {
  const tried: string[] = [];
  if (probe.settingPath) {
    return { launch: { command: probe.settingPath, args: probe.settingArgs, how: 'the tether.server.path setting' }, tried };
  }
  tried.push('tether.server.path is not set');
  const program = probe.onPath('tether-lsp');
  if (program) {
    return { launch: { command: program, args: probe.settingArgs, how: `tether-lsp on PATH (${program})` }, tried };
  }
  tried.push('no tether-lsp on PATH');
  const python = await probe.pythonExtensionInterpreter();
  if (python === undefined) {
    tried.push('no interpreter selected in the Python extension');
  } else if (await probe.hasTether(python)) {
    return {
      launch: { command: python, args: ['-m', 'tether_lsp', ...probe.settingArgs], how: `the Python extension's interpreter (${python})` },
      tried,
    };
  } else {
    tried.push(`Tether is not installed in the Python extension's interpreter (${python})`);
  }
  const managed = probe.managedEnvironment();
  if (managed) {
    return {
      launch: { command: managed, args: ['-m', 'tether_lsp', ...probe.settingArgs], how: `the extension's own environment (${managed})` },
      tried,
    };
  }
  tried.push('no environment installed by the extension yet');
  return { tried };
}

/** The message a failed start shows: what was tried and how to fix it. */
export function notFoundMessage(tried: readonly string[]): string {
  return (
    `Tether: the language server was not found (${tried.join('; ')}). ` +
    'Install it with `pip install tether-lsp`, set `tether.server.path`, or let the extension install it.'
  );
}
