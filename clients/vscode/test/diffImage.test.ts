import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cells, dataUri, expandTabs, picture } from '../src/diffImage';

const look = { fontFamily: 'Droid Sans Mono, "monospace"', fontSize: 14, lineHeight: 19, tabSize: 4, dark: false };

test('every line is drawn, indentation kept, markup escaped', () => {
  const text = 'def total(items):\n    if not items:\n        return 0  # <none> & "empty"\n    return sum(items)\n';
  const p = picture(text, look);
  assert.equal(p.lines.length, 4);
  assert.equal((p.svg.match(/<text /g) ?? []).length, 4);
  assert.ok(p.svg.includes('xml:space="preserve">        return 0  # &lt;none&gt; &amp; &quot;empty&quot;</text>'));
  assert.ok(p.svg.includes('font-family="Droid Sans Mono, &quot;monospace&quot;"'));
  assert.equal(p.height, Math.ceil(4 * 19 + 12));
});

test('tabs expand to the tab size; wide characters take two cells', () => {
  assert.equal(expandTabs('\tx\ty', 4), '    x   y');
  assert.equal(cells('café'), 4);
  assert.equal(cells('東京'), 4);
  assert.equal(cells('🚀a'), 3);
  const p = picture('\tname = "東京 🚀"', look);
  assert.deepEqual(p.lines, ['    name = "東京 🚀"']);
  assert.ok(p.width >= cells(p.lines[0]) * 14 * 0.6);
});

test('a longer replacement is taller than a shorter one; the data uri decodes to the svg', () => {
  assert.ok(picture('a\nb\nc\nd\ne', look).height > picture('a\nb', look).height);
  const p = picture('x = 1', { ...look, dark: true });
  assert.equal(Buffer.from(dataUri(p.svg).split(',')[1], 'base64').toString('utf8'), p.svg);
});
