import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SelectorInfo, typedArgs } from '../src/selectorArgs';

const catalogue: SelectorInfo[] = [
  { name: 'selectNth', args: [{ name: 'n', type: 'int' }], description: '' },
  { name: 'filterText', args: [{ name: 'pattern', type: 'regex' }], description: '' },
];

test('declared integers become numbers, the rest stays text', () => {
  assert.deepEqual(typedArgs('selectNth', ['-1'], catalogue), [-1]);
  assert.deepEqual(typedArgs('filterText', ['123'], catalogue), ['123']); // a regex that looks like a number
  assert.deepEqual(typedArgs('selectNth', ['x'], catalogue), ['x']); // the server names the bad argument
  assert.deepEqual(typedArgs('selectUnknown', ['1'], catalogue), ['1']);
  assert.deepEqual(typedArgs('selectNth', ['2'], undefined), ['2']);
});
