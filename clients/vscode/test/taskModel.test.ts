import assert from 'node:assert/strict';
import { test } from 'node:test';

import { instructionAt, isTaskLine, summary } from '../src/taskModel';

test('a task line has @run or @task and an instruction', () => {
  assert.equal(instructionAt('# @run use sum() here  '), 'use sum() here');
  assert.equal(instructionAt('x = 1  # @task rename x to total'), 'rename x to total');
  assert.equal(isTaskLine('# @run '), false); // nothing to do yet: the hint shows instead
  assert.equal(isTaskLine('# @running late'), false);
  assert.equal(isTaskLine('# no task'), false);
});

test('the final message names each file and what happened to it', () => {
  const rel = (u: string) => u.replace('file:///ws/', '');
  assert.equal(summary({ sessionUri: 's', edits: [{ uri: 'file:///ws/a.py', status: 'applied' }, { uri: 'file:///ws/t/b.py', status: 'created' }] }, rel), 'a.py: applied, t/b.py: created');
  assert.equal(summary({ sessionUri: 's', edits: [] }, rel), 'no change');
});
