import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LogDedup } from '../src/serverLog';

const REC = '2026-11-26 19:25:37,402 INFO tether_lsp.server.lifecycle: tether-lsp 0.1.0: root /ws\n';
const MSG = '[Info  - 7:25:37 PM] tether_lsp.server.lifecycle: tether-lsp 0.1.0: root /ws';

test('a record that also came as a log message is shown once, whichever came first', () => {
  const first = new LogDedup(1000);
  first.message(MSG, 0);
  assert.equal(first.stderr(REC, 10), '');
  assert.equal(first.due(5000, true), '');

  const second = new LogDedup(1000);
  assert.equal(second.stderr(REC, 0), ''); // held back a moment
  second.message(MSG, 300);
  assert.equal(second.due(5000, true), '');
});

test('a record with no log message (another library, before the client connected) is shown after the wait', () => {
  const d = new LogDedup(1000);
  const pygls = '2026-11-26 19:25:37,500 WARNING pygls.protocol: Ignoring notification\n';
  assert.equal(d.stderr(pygls, 0), '');
  assert.equal(d.due(500), '');
  assert.equal(d.due(1200), pygls);
  assert.equal(d.pending(), false);
});

test('a traceback stays with its record; split chunks and plain output are handled', () => {
  const d = new LogDedup(1000);
  const rec = '2026-11-26 19:25:38,000 ERROR tether_lsp.server.reporting: boom\nTraceback (most recent call last):\n  File "x.py"\nValueError: boom\n';
  assert.equal(d.stderr(rec.slice(0, 30), 0), '');
  assert.equal(d.stderr(rec.slice(30), 1), '');
  d.message('[Error - 7:25:38 PM] tether_lsp.server.reporting: boom\nTraceback (most recent call last):', 2);
  assert.equal(d.due(5000), '');
  assert.equal(d.stderr('Fatal Python error: Segmentation fault\n', 10), 'Fatal Python error: Segmentation fault\n');
  assert.equal(d.stderr('no line break yet', 20), '');
  assert.equal(d.due(500), '');
  assert.equal(d.due(1100), 'no line break yet\n');
});
