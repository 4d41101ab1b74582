import assert from 'node:assert/strict';
import { test } from 'node:test';

import { afterChange, moveLines } from '../src/previewModel';
import type { Range } from '../src/wire';

const struck: Range = { start: { line: 10, character: 0 }, end: { line: 14, character: 12 } };
const at = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test('an edit above moves the preview by the lines it adds or removes', () => {
  assert.deepEqual(afterChange(struck, { range: at(2, 0, 2, 0), text: '# one\n# two\n' }), at(12, 0, 16, 12));
  assert.deepEqual(afterChange(struck, { range: at(3, 0, 6, 0), text: '' }), at(7, 0, 11, 12));
  assert.deepEqual(afterChange(struck, { range: at(9, 2, 9, 5), text: 'é' }), struck); // same line count
});

test('an edit after the struck code leaves it; one inside or touching it ends the preview', () => {
  assert.deepEqual(afterChange(struck, { range: at(14, 13, 14, 13), text: 'x' }), struck);
  assert.deepEqual(afterChange(struck, { range: at(20, 0, 21, 0), text: '' }), struck);
  assert.equal(afterChange(struck, { range: at(12, 4, 12, 4), text: 'x' }), null);
  assert.equal(afterChange(struck, { range: at(14, 12, 14, 12), text: 'x' }), null); // at its very end
  assert.equal(afterChange(struck, { range: at(9, 0, 10, 3), text: '' }), null); // from above into it
  assert.equal(afterChange(struck, { range: at(10, 0, 10, 0), text: '# x\n' }), null); // at its start
});

test('the pending edit moves with the struck code: lines shift, columns stay', () => {
  assert.deepEqual(moveLines(at(10, 4, 14, 12), 2), at(12, 4, 16, 12));
  assert.deepEqual(moveLines(at(10, 4, 14, 12), -3), at(7, 4, 11, 12));
});
