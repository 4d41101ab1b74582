import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  compareOutputs,
  inputsOf,
  insidePrompt,
  LiveRun,
  mergeInputs,
  mergeVariables,
  outputView,
  runParameters,
  runSummary,
} from '../src/playgroundModel';
import type { StoredRun } from '../src/wire';

test('saving variables keeps the other stored inputs and the other variables', () => {
  const saved = { model: 'small', options: { temperature: 0.2 }, variables: { language: 'French', text: 'x' } };
  assert.deepEqual(mergeVariables(saved, { text: 'Bonjour 🚀' }), {
    model: 'small',
    options: { temperature: 0.2 },
    variables: { language: 'French', text: 'Bonjour 🚀' },
  });
});

test('nothing saved yet, or saved by a client that wrote odd values', () => {
  assert.deepEqual(mergeVariables(null, { a: '1' }), { variables: { a: '1' } });
  assert.deepEqual(mergeVariables({ variables: { n: 5, s: 'ok' } }, {}), { variables: { s: 'ok' } });
  assert.deepEqual(mergeVariables({ variables: 'nope' }, { a: '' }), { variables: { a: '' } });
});

test('the model and its parameters typed in the panel are saved with the prompt; blank ones go back to the default', () => {
  const saved = { variables: { text: 'x' }, model: 'old', options: { temperature: 1, seed: 7 }, other: true };
  assert.deepEqual(mergeInputs(saved, { model: ' big ', temperature: '0.3', maxTokens: '64' }), {
    variables: { text: 'x' },
    model: 'big',
    options: { temperature: 0.3, seed: 7, maxTokens: 64 },
    other: true,
  });
  assert.deepEqual(mergeInputs({ model: 'm', options: { temperature: 1 } }, { model: '', temperature: '', maxTokens: '' }), {});
  assert.deepEqual(mergeInputs({ a: 1 }, undefined), { a: 1 });
  assert.deepEqual(inputsOf({ model: 'big', options: { temperature: 0.3, maxTokens: 64 } }), { model: 'big', temperature: '0.3', maxTokens: '64' });
  assert.deepEqual(inputsOf(null), { model: '', temperature: '', maxTokens: '' });
});

test('a run sends only what was typed: the server falls back to the saved inputs and the settings', () => {
  assert.deepEqual(runParameters({ model: '', temperature: '0', maxTokens: '' }), { options: { temperature: 0 } });
  assert.deepEqual(runParameters({ model: 'm', temperature: 'x', maxTokens: '12.4' }), { model: 'm', options: { maxTokens: 12 } });
  assert.deepEqual(runParameters(undefined), {});
});

test('selecting a prompt from the list puts the cursor just inside its string', () => {
  const range = { start: { line: 1, character: 18 }, end: { line: 1, character: 80 } };
  assert.deepEqual(insidePrompt(range), { line: 1, character: 19 });
  assert.deepEqual(insidePrompt({ start: { line: 3, character: 4 }, end: { line: 3, character: 5 } }), { line: 3, character: 4 });
});

test('two outputs side by side: the lines only one of them has are marked', () => {
  const { left, right } = compareOutputs('Bonjour\nMerci', 'Bonjour\nMerci beaucoup\nAu revoir');
  assert.deepEqual(left.map((l) => l.differs), [false, true]);
  assert.deepEqual(right.map((l) => l.differs), [false, true, true]);
});

const RUN: StoredRun = {
  runId: 'r-1',
  promptId: 'p-1',
  createdAt: '2025-05-01T10:00:00Z',
  model: 'fake-chat',
  prompt: 'Translate Hello into French',
  messages: [{ role: 'user', content: 'Translate Hello into French' }],
  output: 'Bonjour',
  variables: { text: 'Hello' },
  finishReason: 'stop',
  durationMs: 812,
  usage: { promptTokens: 12, completionTokens: 3 },
  temperature: 0.3,
  maxTokens: 64,
};

test('a run says which temperature and max tokens it ran with (runs list and comparison)', () => {
  assert.equal(runSummary(RUN), '2025-05-01T10:00:00Z · fake-chat · temperature 0.3 · max tokens 64 · 812 ms · 12+3 tokens');
  // the model's defaults (null), or a run stored before they were recorded (absent): nothing is made up
  const { temperature: _t, maxTokens: _m, usage: _u, ...older } = RUN;
  assert.equal(runSummary({ ...older, temperature: null, maxTokens: null }), '2025-05-01T10:00:00Z · fake-chat · 812 ms');
  assert.equal(runSummary(older, () => 'May 1'), 'May 1 · fake-chat · 812 ms');
  assert.equal(runSummary({ ...RUN, temperature: 0, finishReason: 'length' }, () => 'May 1'),
    'May 1 · fake-chat · temperature 0 · max tokens 64 · cut at max tokens · 812 ms · 12+3 tokens');
});

test("the output area shows the prompt's own run, or its last answer, never another prompt's", () => {
  const summary = (r: StoredRun) => `summary of ${r.runId}`;
  const live: LiveRun = { promptId: 'A', anchor: 'TRANSLATE_PROMPT', text: 'Tradu' };
  // A streams: A shows it with Cancel; B (moved to meanwhile) shows its own last answer, Cancel and Run off
  assert.deepEqual(outputView('A', live, RUN, summary), { output: 'Tradu', status: 'Running…', error: '', canRun: false, canCancel: true });
  assert.deepEqual(outputView('B', live, { ...RUN, runId: 'r-b', output: 'Salut' }, summary), {
    output: 'Salut',
    status: 'summary of r-b — TRANSLATE_PROMPT is running: go back to it to follow or cancel it.',
    error: '',
    canRun: false,
    canCancel: false,
  });
  assert.deepEqual(outputView('B', live, undefined, summary), {
    output: null, status: 'TRANSLATE_PROMPT is running: go back to it to follow or cancel it.', error: '', canRun: false, canCancel: false,
  });
  // coming back to a prompt: its last answer in the output area, with the line saying how it ran
  assert.deepEqual(outputView('A', null, RUN, summary), { output: 'Bonjour', status: 'summary of r-1', error: '', canRun: true, canCancel: false });
  assert.deepEqual(outputView('A', null, undefined, summary), { output: null, status: '', error: '', canRun: true, canCancel: false });
  // cancelled: what came so far stays, with why
  assert.deepEqual(outputView('A', { ...live, ended: 'Cancelled.' }, RUN, summary), {
    output: 'Tradu', status: '', error: 'Cancelled.', canRun: true, canCancel: false,
  });
  assert.deepEqual(outputView('B', { ...live, ended: 'Cancelled.' }, undefined, summary).canRun, true);
});
