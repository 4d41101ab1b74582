import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
  ACTION_COMMANDS,
  editsByDocument,
  errorText,
  OffsetChange,
  selectionPlan,
  shiftOffset,
  shiftSpan,
  staleDocuments,
  targetCount,
  targetsOf,
} from '../src/actionModel';
import type { Location, Range, WorkspaceEdit } from '../src/wire';

const range = (l1: number, c1: number, l2: number, c2: number): Range => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const PACKAGE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));

test('the Tether selection is the target; without one, the editor selections (a cursor is an empty range)', () => {
  assert.deepEqual(targetsOf([7, 9], [range(0, 0, 0, 0)]), { cursorNodeIds: [7, 9] });
  assert.deepEqual(targetsOf([], [range(1, 4, 1, 4), range(3, 0, 5, 2)]), { ranges: [range(1, 4, 1, 4), range(3, 0, 5, 2)] });
  assert.equal(targetCount({ cursorNodeIds: [1, 2] }), 2);
  assert.equal(targetCount({ ranges: [range(0, 0, 0, 0)] }), 1);
});

test('package.json contributes each action command, with a title, a palette condition and no key used twice', () => {
  const contributed = PACKAGE.contributes.commands.filter((c: { command: string }) => c.command.startsWith('tether.action.'));
  const ids = contributed.map((c: { command: string }) => c.command.slice('tether.action.'.length)).sort();
  assert.deepEqual(ids, [...ACTION_COMMANDS.map((c) => c.id), 'mark', 'unmark'].sort());
  for (const c of contributed) assert.ok(c.title.startsWith('Action: ') && c.category === 'Tether', c.command);
  const palette = new Map(PACKAGE.contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]));
  for (const c of contributed) assert.ok(palette.get(c.command), `${c.command}: shown in the palette only where it works`);
  const keys = PACKAGE.contributes.keybindings.map((k: { key: string; when: string }) => `${k.key} ${k.when}`);
  assert.equal(new Set(keys).size, keys.length);
  const bound = PACKAGE.contributes.keybindings.filter((k: { command: string }) => k.command.startsWith('tether.action.'));
  assert.ok(bound.length >= 10);
  for (const k of bound) {
    assert.match(k.key, /^ctrl\+alt\+a /, k.command); // one chord of Tether's own, not VS Code's editing keys
    assert.match(k.when, /editorTextFocus && !editorReadonly && editorLangId =~ \/\^\(.*python.*yaml\)\$\//, k.command);
  }
  const colors = PACKAGE.contributes.colors.map((c: { id: string }) => c.id);
  assert.deepEqual(colors, ['tether.markBackground', 'tether.markBorder']);
});

test('the answer edit per document, with the version it is for', () => {
  const edit: WorkspaceEdit = {
    documentChanges: [
      { textDocument: { uri: 'file:///a.py', version: 4 }, edits: [{ range: range(3, 0, 7, 0), newText: '' }] },
      { textDocument: { uri: 'file:///b.py', version: null }, edits: [] },
    ],
    changes: { 'file:///c.py': [{ range: range(0, 0, 0, 0), newText: 'x' }] },
  };
  assert.deepEqual(
    editsByDocument(edit).map((c) => [c.uri, c.version, c.edits.length]),
    [['file:///a.py', 4, 1], ['file:///b.py', null, 0], ['file:///c.py', null, 1]],
  );
});

test('an edit for another version of a document, or for one not open, is not applied', () => {
  const changes = [
    { uri: 'file:///a.py', version: 4, edits: [] },
    { uri: 'file:///b.py', version: 2, edits: [] },
    { uri: 'file:///c.py', version: null, edits: [] },
    { uri: 'file:///gone.py', version: 1, edits: [] },
  ];
  const versions: Record<string, number> = { 'file:///a.py': 4, 'file:///b.py': 3, 'file:///c.py': 9 };
  assert.deepEqual(staleDocuments(changes, (uri) => versions[uri]), ['file:///b.py', 'file:///gone.py']);
  assert.deepEqual(staleDocuments(changes.slice(0, 1), (uri) => versions[uri]), []);
});

test('what an action produced is selected in the active document first; insert puts the cursor at the spot', () => {
  const produced: Location[] = [
    { uri: 'file:///b.py', range: range(9, 0, 10, 4) },
    { uri: 'file:///a.py', range: range(2, 4, 2, 9) },
    { uri: 'file:///a.py', range: range(5, 4, 5, 9) },
  ];
  assert.deepEqual(selectionPlan(produced, 'file:///a.py', 'clone'), { uri: 'file:///a.py', ranges: [range(2, 4, 2, 9), range(5, 4, 5, 9)] });
  assert.deepEqual(selectionPlan(produced, 'file:///z.py', 'move'), { uri: 'file:///b.py', ranges: [range(9, 0, 10, 4)] });
  assert.deepEqual(selectionPlan([{ uri: 'file:///a.py', range: range(4, 4, 4, 8) }], 'file:///a.py', 'insert'), {
    uri: 'file:///a.py',
    ranges: [range(4, 4, 4, 4)],
  });
  assert.equal(selectionPlan([], 'file:///a.py', 'remove'), undefined);
});

test('an error is one line: a refusal without its field, a stale version said as such', () => {
  const refusal = {
    code: -32602,
    message: 'targets[0]: the function is already the first of its container',
    data: { kind: 'actionRefused', field: 'targets[0]', action: 'moveUp' },
  };
  assert.equal(errorText('moveUp', refusal), 'moveUp refused: the function is already the first of its container');
  assert.equal(
    errorText('remove', { code: -32801, message: 'version 3 of file:///a.py is not current (current: 4)' }),
    'remove: the document changed since it was selected; select again',
  );
  assert.equal(
    errorText('remove', { code: -32602, message: 'targets.cursorNodeIds: [5] are not nodes', data: { kind: 'invalidParams', field: 'targets.cursorNodeIds' } }),
    'remove: [5] are not nodes',
  );
  assert.equal(errorText('wrap', new Error('Connection got disposed.')), 'wrap: Connection got disposed.');
  assert.equal(errorText('wrap', 'timeout'), 'wrap: timeout');
});

// "0123456789" and one event's changes, applied to text to check where an offset lands
function apply(text: string, changes: (OffsetChange & { text: string })[]): string {
  for (const c of [...changes].sort((a, b) => b.rangeOffset - a.rangeOffset)) {
    text = text.slice(0, c.rangeOffset) + c.text + text.slice(c.rangeOffset + c.rangeLength);
  }
  return text;
}
const change = (rangeOffset: number, rangeLength: number, text: string) => ({ rangeOffset, rangeLength, text, textLength: text.length });

test('the mark follows edits before it, after it and at its edges, and shrinks with text replaced inside it', () => {
  const text = '0123456789';
  const span = { start: 3, end: 7 }; // "3456"
  const cases: [ReturnType<typeof change>[], string][] = [
    [[change(0, 0, 'ab')], '3456'], // typed before
    [[change(8, 1, '')], '3456'], // deleted after
    [[change(3, 0, 'x')], '3456'], // typed at its start: outside
    [[change(7, 0, 'x')], '3456'], // typed at its end: outside
    [[change(1, 1, 'ÉÉÉ'), change(8, 2, '')], '3456'], // several changes in one event (VS Code's multi-cursor edits)
    [[change(4, 2, 'zz')], '3zz6'], // inside: the replacement is in it
    [[change(1, 4, 'q')], '56'], // over its start: what is left of it
    [[change(5, 4, 'q')], '34'], // over its end
    [[change(2, 6, 'q')], ''], // all of it gone: empty where it was
  ];
  for (const [changes, expected] of cases) {
    const after = apply(text, changes);
    const moved = shiftSpan(span, changes);
    assert.equal(after.slice(moved.start, moved.end), expected, JSON.stringify(changes));
    if (expected === '') assert.equal(moved.start, 2 + 1, 'after the replacement that took it');
  }
});

test('an offset inside a replaced part goes to the side asked for', () => {
  const changes = [change(0, 1, 'ab'), change(4, 3, 'xy')]; // "0123456789" -> "ab123xy789"
  assert.equal(shiftOffset(5, changes, -1), 5); // before "xy"
  assert.equal(shiftOffset(5, changes, 1), 7); // after "xy"
  assert.equal(shiftOffset(9, changes, 1), 9); // 9 - 1 + 1
  assert.equal(shiftOffset(0, changes, -1), 0);
});
