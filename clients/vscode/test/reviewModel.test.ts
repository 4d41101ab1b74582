import assert from 'node:assert/strict';
import { test } from 'node:test';

import { accept, counts, diffLines, hunkAt, lines, minimalEdit, reject, TextEdit } from '../src/reviewModel';

const BASE = 'def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\n\n# @run use sum()\n';
const TASK = 'def total(items):\n    return sum(items)\n\n\n# @run use sum()\n\n\ndef helper():\n    pass\n';

function apply(text: string, edit: TextEdit | undefined): string {
  return edit ? text.slice(0, edit.start) + edit.text + text.slice(edit.end) : text;
}

test('a task that rewrote a body and added a function is two hunks', () => {
  const hunks = diffLines(lines(BASE), lines(TASK));
  assert.deepEqual(
    hunks.map((h) => [h.oldStart, h.oldLines.length, h.newStart, h.newLines.length]),
    [
      [1, 4, 1, 1],
      [8, 0, 5, 4],
    ],
  );
  assert.deepEqual(hunks[0].newLines, ['    return sum(items)']);
  assert.equal(counts(hunks[0]), '−4 +1');
  assert.equal(counts(hunks[1]), '+4');
});

test('rejecting every hunk, one at a time from the bottom or the top, gives the base back', () => {
  for (const order of ['top', 'bottom']) {
    let now = TASK;
    for (;;) {
      const hunks = diffLines(lines(BASE), lines(now));
      if (!hunks.length) break;
      now = apply(now, reject(lines(now), order === 'top' ? hunks[0] : hunks[hunks.length - 1]));
    }
    assert.equal(now, BASE, order);
  }
});

test('accepting a hunk moves it into the base; the others stay', () => {
  const hunks = diffLines(lines(BASE), lines(TASK));
  const base = accept(lines(BASE), hunks[1]);
  const left = diffLines(base, lines(TASK));
  assert.equal(left.length, 1);
  assert.deepEqual(left[0].oldLines, hunks[0].oldLines);
  assert.equal(diffLines(accept(base, left[0]), lines(TASK)).length, 0);
});

test('changes at the very end and start of a file without a final newline are rejected exactly', () => {
  for (const [a, b] of [
    ['a\nb', 'a\nb\nc'],
    ['a\nb\nc', 'a'],
    ['x\na', 'a'],
    ['a', 'y\na'],
    ['', 'new file text\n'],
    ['a\r\nb\r\n', 'a\r\nB\r\nb\r\n'],
  ]) {
    const hunks = diffLines(lines(a), lines(b));
    assert.equal(hunks.length, 1, `${a} -> ${b}`);
    assert.equal(apply(b, reject(lines(b), hunks[0])), a, `${a} -> ${b}`);
  }
});

test('the hunk at a line: changed lines, and the line a deletion left its mark on', () => {
  const hunks = diffLines(lines(BASE), lines(TASK));
  assert.equal(hunkAt(hunks, 1), 0);
  assert.equal(hunkAt(hunks, 2), -1);
  assert.equal(hunkAt(hunks, 6), 1);
  const deleted = diffLines(lines('a\nb\nc'), lines('a\nc'));
  assert.equal(hunkAt(deleted, 1), 0); // on `c`, where `b` was
});

test('the minimal edit keeps what both texts share', () => {
  assert.deepEqual(minimalEdit('abcdef', 'abXYef'), { start: 2, end: 4, text: 'XY' });
  assert.deepEqual(minimalEdit('aaa', 'aaaa'), { start: 3, end: 3, text: 'a' });
  assert.equal(minimalEdit('same', 'same'), undefined);
});

test('a very large change is one hunk instead of an enormous table', () => {
  const a = Array.from({ length: 3000 }, (_, k) => `a${k}`);
  const b = Array.from({ length: 3000 }, (_, k) => `b${k}`);
  const hunks = diffLines(a, b);
  assert.equal(hunks.length, 1);
  assert.equal(hunks[0].oldLines.length, 3000);
});
