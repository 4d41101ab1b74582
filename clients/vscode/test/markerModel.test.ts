import assert from 'node:assert/strict';
import { test } from 'node:test';

import { kindIcon, localDate, noteTitle, relativeTime, treeDescription } from '../src/markerModel';
import type { Marker } from '../src/wire';

const base: Marker = {
  id: 'm', uri: 'file:///a.py', note: 'n', kind: 'issue', code: 'total = 0', commitHashWhenCreated: null, author: 'Ada', createdAt: '2026-11-23T10:00:00Z',
  status: 'located', contentChanged: false,
  range: { start: { line: 3, character: 0 }, end: { line: 7, character: 4 } },
};

test('where a marker is, in the words of the view', () => {
  assert.equal(treeDescription(base), 'lines 4–8');
  assert.equal(treeDescription({ ...base, contentChanged: true }), 'lines 4–8 · changed');
  assert.equal(treeDescription({ ...base, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } }), 'line 1');
  assert.equal(treeDescription({ ...base, range: null, status: 'missing', missingReason: 'codeBlockDeleted' }), 'missing: code deleted');
  assert.equal(treeDescription({ ...base, range: null, status: 'missing', missingReason: 'unknown' }), 'missing: not found');
});

test('titles and icons', () => {
  assert.equal(noteTitle('First line\nsecond'), 'First line');
  assert.equal(noteTitle('   \nx'), '(empty note)');
  assert.equal(noteTitle('é'.repeat(70), 10), 'éééééééé' + 'é…');
  assert.equal(kindIcon('issue'), 'bug');
  assert.equal(kindIcon('whatever'), 'comment');
});

test('dates in the user locale, and how long ago in their language', () => {
  const now = Date.parse('2026-11-23T10:05:00Z');
  assert.equal(relativeTime('2026-11-23T10:04:50Z', now, 'en'), 'now');
  assert.equal(relativeTime('2026-11-23T10:00:00Z', now, 'en'), '5 minutes ago');
  assert.equal(relativeTime('2026-11-22T09:00:00Z', now, 'en'), 'yesterday');
  assert.equal(relativeTime('2026-11-01T10:00:00Z', now, 'en'), '3 weeks ago');
  assert.equal(relativeTime('2026-11-23T10:00:00Z', now, 'fr'), 'il y a 5 minutes');
  assert.equal(relativeTime('not a date', now, 'en'), '');
  assert.match(localDate('2026-11-23T10:00:00Z', 'en'), /Nov 23, 2026/);
  assert.match(localDate('2026-11-23T10:00:00Z', 'de'), /23\.11\.2026/);
  assert.equal(localDate('garbage', 'en'), 'garbage');
  assert.match(localDate('2026-11-23T10:00:00Z', 'xx-not-a-locale!'), /2026/);
});
