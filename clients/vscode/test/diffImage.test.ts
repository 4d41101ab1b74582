import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cells, dataUri, expandTabs, picture, placement } from '../src/diffImage';
import { highlight, LIGHT } from '../src/highlight';

const look = { fontFamily: 'Droid Sans Mono, "monospace"', fontSize: 14, lineHeight: 19, tabSize: 4, dark: false };

test('every line is drawn, indentation kept, markup escaped', () => {
  const text = 'def total(items):\n    if not items:\n        return 0  # <none> & "empty"\n    return sum(items)\n';
  const p = picture(text, look);
  assert.equal(p.lines.length, 4);
  assert.equal((p.svg.match(/<text /g) ?? []).length, 4);
  assert.ok(p.svg.includes('xml:space="preserve"><tspan fill="#1f1f1f">        return 0  # &lt;none&gt; &amp; &quot;empty&quot;</tspan></text>'));
  assert.ok(p.svg.includes('font-family="Droid Sans Mono, &quot;monospace&quot;"'));
  assert.equal(p.height, Math.ceil(4 * 19 + 12));
});

test('tabs expand to the tab size; wide characters take two cells', () => {
  assert.equal(expandTabs('\tx\ty', 4), '    x   y');
  assert.equal(cells('café'), 4);
  assert.equal(cells('東京'), 4);
  assert.equal(cells('🚀a'), 3);
  const p = picture('\tname = "東京 🚀"\n\t\tnext', look);
  assert.deepEqual(p.lines, ['name = "東京 🚀"', '    next']); // drawn from the indentation the lines share
  assert.equal(p.indent, 4);
  assert.ok(p.width >= cells(p.lines[0]) * 14 * 0.6);
});

test('a longer replacement is taller than a shorter one; the data uri decodes to the svg', () => {
  assert.ok(picture('a\nb\nc\nd\ne', look).height > picture('a\nb', look).height);
  const p = picture('x = 1', { ...look, dark: true });
  assert.equal(Buffer.from(dataUri(p.svg).split(',')[1], 'base64').toString('utf8'), p.svg);
});

test("python is drawn in the default theme's colours, a triple-quoted string carried across lines", () => {
  const p = picture('def total(items):\n    """Sum.\n    """\n    return sum(items)  # all', look, 'python');
  assert.ok(p.svg.includes(`<tspan fill="${LIGHT.keyword}">def</tspan>`));
  assert.ok(p.svg.includes(`<tspan fill="${LIGHT.function}">total</tspan>`));
  assert.ok(p.svg.includes(`<tspan fill="${LIGHT.string}">    &quot;&quot;&quot;</tspan>`)); // the string's closing line
  assert.ok(p.svg.includes(`<tspan fill="${LIGHT.control}">return</tspan>`));
  assert.ok(p.svg.includes(`<tspan fill="${LIGHT.comment}"># all</tspan>`));
});

test('the tokens of a line are the line: nothing lost or added', () => {
  const lines = [
    'class Shape(Base):',
    '    @property',
    '    def area(self) -> float:  # x',
    '        return 3.14 * self.r ** 2 if self.r else 0x1F',
    "        s = f'{a}' + r\"\\d\" + '''open",
    "still open''' + 'x'",
  ];
  const tokens = highlight(lines, 'python');
  assert.deepEqual(
    tokens.map((t) => t.map((x) => x.text).join('')),
    lines,
  );
  assert.deepEqual(tokens[5][0], { text: "still open'''", kind: 'string' });
  assert.equal(tokens[0].find((t) => t.text === 'Shape')?.kind, 'class');
  const yaml = ['- hosts: all  # web', '  tasks:', '    - name: "Get cpu"', '      become: true', '        command: >-', '          oc get nodes'];
  const y = highlight(yaml, 'ansible');
  assert.deepEqual(
    y.map((t) => t.map((x) => x.text).join('')),
    yaml,
  );
  assert.deepEqual(
    y[0].map((t) => t.kind),
    ['plain', 'key', 'plain', 'value', 'comment'],
  );
  assert.equal(y[2].find((t) => t.text === '"Get cpu"')?.kind, 'string');
  assert.equal(y[3].find((t) => t.text === 'true')?.kind, 'number');
  assert.equal(y[5][1].kind, 'value');
});

test('the image goes under the struck lines, at their indentation, over the editor', () => {
  const css = placement({ indent: 4, lines: 5 });
  assert.ok(css.startsWith('none; position: absolute; left: 0; top: 0;'));
  assert.ok(css.includes('margin-left: 4ch'));
  assert.ok(css.includes('margin-top: calc(5 * 1lh)'));
});
