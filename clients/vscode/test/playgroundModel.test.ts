import assert from 'node:assert/strict';
import { test } from 'node:test';

import { mergeVariables } from '../src/playgroundModel';

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
