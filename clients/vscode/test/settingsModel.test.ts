import assert from 'node:assert/strict';
import { test } from 'node:test';

import { forServer } from '../src/settingsModel';

test('the server gets every tether setting but the extension’s own', () => {
  const all = { server: { path: '/x', args: [] }, playground: { endpoint: 'http://h/v1', maxRunsPerPrompt: 5 }, limits: { workers: 2 } };
  assert.deepEqual(forServer(all), { playground: { endpoint: 'http://h/v1', maxRunsPerPrompt: 5 }, limits: { workers: 2 } });
  assert.deepEqual(all.server, { path: '/x', args: [] }); // the original is left alone
  assert.deepEqual(forServer({}), {});
});
