import assert from 'node:assert/strict';
import { test } from 'node:test';

import { discover, notFoundMessage, Probe } from '../src/discovery';

function probe(over: Partial<Probe>): Probe {
  return {
    settingPath: null,
    settingArgs: [],
    onPath: () => undefined,
    pythonExtensionInterpreter: async () => undefined,
    hasTether: async () => false,
    managedEnvironment: () => undefined,
    ...over,
  };
}

test('the setting wins over everything', async () => {
  const found = await discover(probe({ settingPath: '/opt/t', settingArgs: ['--log-level', 'debug'], onPath: () => '/usr/bin/tether-lsp' }));
  assert.deepEqual(found.launch, { command: '/opt/t', args: ['--log-level', 'debug'], how: 'the tether.server.path setting' });
});

test('then tether-lsp on PATH', async () => {
  const found = await discover(probe({ onPath: (p) => (p === 'tether-lsp' ? '/home/u/.local/bin/tether-lsp' : undefined) }));
  assert.equal(found.launch?.command, '/home/u/.local/bin/tether-lsp');
  assert.deepEqual(found.tried, ['tether.server.path is not set']);
});

test('then the Python extension interpreter, only when Tether is installed there', async () => {
  const withTether = await discover(probe({ pythonExtensionInterpreter: async () => '/venv/bin/python', hasTether: async (p) => p === '/venv/bin/python' }));
  assert.deepEqual(withTether.launch?.args, ['-m', 'tether_lsp']);
  assert.equal(withTether.launch?.command, '/venv/bin/python');
  const without = await discover(probe({ pythonExtensionInterpreter: async () => '/venv/bin/python', managedEnvironment: () => '/g/venv/bin/python' }));
  assert.equal(without.launch?.command, '/g/venv/bin/python');
  assert.ok(without.tried.includes("Tether is not installed in the Python extension's interpreter (/venv/bin/python)"));
});

test('nothing found: every place tried is listed, and the message says how to fix it', async () => {
  const found = await discover(probe({}));
  assert.equal(found.launch, undefined);
  assert.deepEqual(found.tried, [
    'tether.server.path is not set',
    'no tether-lsp on PATH',
    'no interpreter selected in the Python extension',
    'no environment installed by the extension yet',
  ]);
  const text = notFoundMessage(found.tried);
  assert.match(text, /no tether-lsp on PATH/);
  assert.match(text, /pip install tether-lsp/);
  assert.match(text, /tether\.server\.path/);
});
