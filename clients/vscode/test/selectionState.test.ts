import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SelectionState, Span } from '../src/selectionState';

const A: Span = { startLine: 1, startCharacter: 4, endLine: 1, endCharacter: 9 };
const B: Span = { startLine: 7, startCharacter: 4, endLine: 7, endCharacter: 12 };

test('a document without state starts from the root', () => {
  const state = new SelectionState();
  assert.deepEqual(state.ids('file:///a.py'), []);
  assert.equal(state.count('file:///a.py'), undefined);
});

test('the selection we set keeps the state; the next user change clears it', () => {
  const state = new SelectionState();
  state.applied('u', [10, 20], [A, B]);
  assert.equal(state.selectionChanged('u', [A, B]), false); // our own event, arriving later
  assert.deepEqual(state.ids('u'), [10, 20]);
  assert.equal(state.selectionChanged('u', [A, B]), true); // the same selections again: the user clicked
  assert.deepEqual(state.ids('u'), []);
});

test('a different selection is the user’s: the state ends', () => {
  const state = new SelectionState();
  state.applied('u', [10], [A]);
  assert.equal(state.selectionChanged('u', [B]), true);
  assert.equal(state.has('u'), false);
});

test('an edit clears the state (every version has new ids); other documents keep theirs', () => {
  const state = new SelectionState();
  state.applied('u', [10], [A]);
  state.applied('v', [30], [B]);
  assert.equal(state.edited('u'), true);
  assert.deepEqual(state.ids('u'), []);
  assert.deepEqual(state.ids('v'), [30]);
  assert.equal(state.edited('u'), false); // nothing left to clear
});

test('an empty result (Next Sibling at the last one) keeps the cursors where they were', () => {
  const state = new SelectionState();
  assert.equal(state.applied('u', [10], [A]), true);
  assert.equal(state.selectionChanged('u', [A]), false);
  assert.equal(state.applied('u', [], []), false);
  assert.deepEqual(state.ids('u'), [10]); // the next selector continues from here
  assert.equal(state.count('u'), 1); // the status bar still says "1 cursor"
  assert.equal(state.selectionChanged('u', [B]), true); // the user's own move still ends it
});

test('reset and forget clear the state', () => {
  const state = new SelectionState();
  state.applied('u', [11], [A]);
  assert.equal(state.count('u'), 1);
  assert.equal(state.reset('u'), true);
  state.applied('u', [12], [A]);
  state.forget('u');
  assert.equal(state.has('u'), false);
});

test('a chain continues from the ids of the previous step', () => {
  const state = new SelectionState();
  state.applied('u', [5, 6, 7], [A, B, A]);
  state.selectionChanged('u', [A, B, A]);
  state.applied('u', [5], [A]);
  assert.deepEqual(state.ids('u'), [5]);
  assert.equal(state.selectionChanged('u', [A]), false);
});

test('a chain applied faster than VS Code reports its selections: the earlier step’s late event is ours too', () => {
  const state = new SelectionState();
  state.applied('u', [5, 6, 7], [A, B, A]); // selectFunctions
  state.applied('u', [6], [B]); // selectNth 1, answered before the first selection event arrived
  assert.equal(state.selectionChanged('u', [A, B, A]), false); // the first step's event, late
  assert.equal(state.selectionChanged('u', [B]), false); // the second's
  assert.deepEqual(state.ids('u'), [6]);
  assert.equal(state.selectionChanged('u', [A, B, A]), true); // now it is the user's
});

test('a late event of an earlier step that was already passed by the next one is not taken as ours again', () => {
  const state = new SelectionState();
  state.applied('u', [1], [A]);
  state.applied('u', [2], [B]);
  assert.equal(state.selectionChanged('u', [B]), false); // the first one's event never came (coalesced)
  assert.equal(state.selectionChanged('u', [A]), true); // A now is the user's click
});
