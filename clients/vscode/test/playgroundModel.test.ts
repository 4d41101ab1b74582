import assert from 'node:assert/strict';
import { test } from 'node:test';

import { compareOutputs, inputsOf, insidePrompt, mergeInputs, mergeVariables, runParameters } from '../src/playgroundModel';

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
