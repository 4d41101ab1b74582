import assert from 'node:assert/strict';
import { test } from 'node:test';

import { argumentDefault, argumentProblem, argumentPrompt, argumentsSummary, characterAt, parseStep, statusColumn, typedArgs } from '../src/selectorArgs';
import type { SelectorInfo } from '../src/wire';

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

const withPositions: SelectorInfo[] = [
  { name: 'selectAt', args: [{ name: 'line', type: 'nat' }, { name: 'character', type: 'nat' }], description: '' },
  {
    name: 'selectRange',
    args: [
      { name: 'startLine', type: 'nat' },
      { name: 'startCharacter', type: 'nat' },
      { name: 'endLine', type: 'nat' },
      { name: 'endCharacter', type: 'nat' },
    ],
    description: '',
  },
  { name: 'filterText', args: [{ name: 'regex', type: 'str' }], description: '' },
];
const lines = ['def f():', '\treturn "☕ 🐍 x"', '    pass'];
const lineText = (k: number) => lines[k];

test("the status bar's Ln / Col typed into selectAt is the position the status bar names", () => {
  // "Ln 3, Col 5" is `pass`: line 2, character 4
  assert.deepEqual(typedArgs('selectAt', ['3', '5'], withPositions, lineText, 4), [2, 4]);
  // a tab counts to the next tab stop (Col 5 is `r`), a character outside the BMP counts once (two UTF-16 units)
  assert.deepEqual(typedArgs('selectAt', ['2', '5'], withPositions, lineText, 4), [1, 1]);
  assert.deepEqual(typedArgs('selectAt', ['2', '17'], withPositions, lineText, 4), [1, 14]); // `x` after 🐍
  assert.deepEqual(typedArgs('selectAt', ['2', '2'], withPositions, lineText, 4), [1, 0]); // inside the tab
  assert.deepEqual(typedArgs('selectAt', ['1', '99'], withPositions, lineText, 4), [0, 8]); // past the end
  assert.deepEqual(typedArgs('selectRange', ['1', '1', '3', '9'], withPositions, lineText, 4), [0, 0, 2, 8]);
  assert.deepEqual(typedArgs('selectAt', ['9', '20'], withPositions), [8, 19]); // no text known: 1-based to 0-based
});

test('the column shown and the column typed agree, character by character', () => {
  for (const [k, text] of lines.entries()) {
    for (let character = 0; character <= text.length; character++) {
      if (character > 0 && text.charCodeAt(character - 1) >= 0xd800 && text.charCodeAt(character - 1) < 0xdc00) continue;
      const column = statusColumn(text, character, 4);
      assert.equal(characterAt(text, column, 4), character, `line ${k}, character ${character}`);
    }
  }
  assert.equal(statusColumn('\treturn', 1, 4), 5); // as VS Code shows it after a tab
  assert.equal(statusColumn('\treturn', 1, 2), 3);
});

test("selectAt's boxes say what is expected and start at the cursor", () => {
  const selection = { start: { line: 1, character: 3 }, end: { line: 2, character: 4 }, active: { line: 1, character: 3 } };
  const at = withPositions[0];
  assert.match(argumentPrompt('selectAt', at.args[0], 0), /line, as "Ln" in the status bar \(1-based/);
  assert.match(argumentPrompt('selectAt', at.args[1], 1), /column, as "Col" in the status bar \(1-based/);
  assert.equal(argumentDefault('selectAt', 0, selection, lineText, 4), '2');
  assert.equal(argumentDefault('selectAt', 1, selection, lineText, 4), '7'); // `\tre|turn`: Col 7
  assert.deepEqual([0, 1, 2, 3].map((k) => argumentDefault('selectRange', k, selection, lineText, 4)), ['2', '7', '3', '5']);
  assert.match(argumentPrompt('selectRange', withPositions[1].args[2], 2), /^selectRange: end line/);
  assert.equal(argumentDefault('filterText', 0, selection, lineText, 4), '');
  assert.equal(argumentPrompt('filterText', withPositions[2].args[0], 0), 'filterText: regex (str)');
  // what each box accepts
  assert.equal(argumentProblem('selectAt', 0, '9'), undefined);
  assert.match(argumentProblem('selectAt', 0, '0') ?? '', /from 1/);
  assert.match(argumentProblem('selectAt', 1, 'x') ?? '', /from 1/);
  assert.equal(argumentProblem('filterText', 0, ''), undefined);
  // and the list of selectors says so too
  assert.equal(argumentsSummary(withPositions[0]), 'Ln, Col (1-based, as in the status bar)');
  assert.equal(argumentsSummary(withPositions[2]), 'regex: str');
});

test('a chain step takes comma-separated arguments when the selector has several', () => {
  assert.deepEqual(parseStep('selectAt:9,20', withPositions), { selector: 'selectAt', args: ['9', '20'] });
  assert.deepEqual(parseStep('filterText:^a,b$', withPositions), { selector: 'filterText', args: ['^a,b$'] });
  assert.deepEqual(parseStep('selectMethods', withPositions), { selector: 'selectMethods', args: [] });
});
