// src/wire.ts against docs/protocol.md (generated from the server's own classes): every Tether shape the client
// declares has the doc's fields, optionality and types, and every method it sends or listens to has the doc's
// params and result. Also: the features send through rpc.ts only, and declare no position shape of their own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const CLIENT = path.resolve(__dirname, '..', '..'); // out/test/ -> clients/vscode
const WIRE = fs.readFileSync(path.join(CLIENT, 'src', 'wire.ts'), 'utf8');
const DOC = fs.readFileSync(path.join(CLIENT, '..', '..', 'docs', 'protocol.md'), 'utf8');

/** Standard LSP shapes and methods: not in the doc's list of Tether's own. */
const STANDARD = new Set([
  'Position', 'Range', 'TextDocumentIdentifier', 'InlineCompletionParams', 'InlineCompletionItem', 'InlineCompletionList',
  'VersionedTextDocumentIdentifier', 'OptionalVersionedTextDocumentIdentifier', 'TextEdit', 'TextDocumentEdit', 'WorkspaceEdit', 'Location',
]);
const STANDARD_METHODS = new Set(['textDocument/inlineCompletion']);
/** Fields the client types more precisely than the doc's generated type says (name and optionality still compared). */
const NARROWER = new Set(['ApplySelectorResult.ranges']);
/** The method tables of wire.ts, besides the interfaces. */
const TABLES = new Set(['Requests', 'ClientNotifications', 'ServerNotifications']);

interface Field {
  name: string;
  optional: boolean;
  type: string;
}

/** `interface Name { field?: type; ... }` blocks, comments dropped. */
function interfaces(text: string): Map<string, Field[]> {
  const found = new Map<string, Field[]>();
  let current: Field[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s*\/\/.*$/, '');
    const opening = /^(?:export )?interface (\w+) \{(\})?$/.exec(line);
    if (opening) {
      current = [];
      found.set(opening[1], current);
      if (opening[2]) current = undefined;
    } else if (current && line === '}') {
      current = undefined;
    } else if (current) {
      const field = /^\s+('[^']+'|\w+)(\??): (.+);$/.exec(line);
      assert.ok(field, `a field line that does not parse: ${raw}`);
      current.push({ name: field[1].replace(/'/g, ''), optional: field[2] === '?', type: field[3].replace(/\s+/g, ' ') });
    }
  }
  return found;
}

const docBlock = DOC.slice(DOC.indexOf('Message shapes')).split('```ts\n')[1].split('\n```')[0];
const doc = interfaces(docBlock);
const wire = interfaces(WIRE);

/** The doc's table of methods: kind, params and result of each. */
const methods = new Map<string, { kind: string; params: string; result: string }>();
for (const line of DOC.split('\n')) {
  const row = /^\| `([^`]+)` \| ([^|]+) \| [^|]+ \| `([^`]+)` \| `((?:[^`\\]|\\.)*)` \|/.exec(line);
  if (row) methods.set(row[1], { kind: row[2].trim(), params: row[3], result: row[4].replace(/\\\|/g, '|') });
}

test('the doc was read: its shapes and its methods', () => {
  assert.ok(doc.has('Marker') && doc.has('PlaygroundState') && doc.get('Empty')?.length === 0);
  assert.equal(methods.get('tether/markers/list')?.result, 'MarkerList');
  assert.equal(methods.get('tether/playground/getSettings')?.result, '{ [key: string]: any } | null');
});

test("every Tether shape in wire.ts has the doc's fields, in its order, with its optionality and types", () => {
  for (const [name, fields] of wire) {
    if (TABLES.has(name)) continue;
    if (STANDARD.has(name)) {
      assert.ok(!doc.has(name), `${name} is in the doc: compare it`);
      continue;
    }
    const documented = doc.get(name);
    assert.ok(documented, `${name} is not in docs/protocol.md`);
    assert.deepEqual(fields.map((f) => f.name), documented.map((f) => f.name), `${name}: fields`);
    for (const [k, f] of fields.entries()) {
      assert.equal(f.optional, documented[k].optional, `${name}.${f.name}: optional`);
      if (!NARROWER.has(`${name}.${f.name}`)) assert.equal(f.type, documented[k].type, `${name}.${f.name}: type`);
    }
  }
});

/** A method table of wire.ts: method -> its text (`{ params: X; result: Y }`, or the params type). */
function table(name: string): Map<string, string> {
  const body = WIRE.split(`export interface ${name} {\n`)[1].split('\n}')[0];
  return new Map(body.split('\n').map((line) => {
    const entry = /^\s+'([^']+)': (.+);$/.exec(line);
    assert.ok(entry, `${name}: a line that does not parse: ${line}`);
    return [entry[1], entry[2]];
  }));
}

test("every request the client sends has the doc's params and result", () => {
  const requests = table('Requests');
  assert.ok(requests.size >= 16);
  for (const [method, text] of requests) {
    const entry = /^\{ params: (\w+); result: (.+) \}$/.exec(text);
    assert.ok(entry, `${method}: ${text}`);
    if (STANDARD_METHODS.has(method)) {
      assert.ok(!methods.has(method), `${method} is in the doc: compare it`);
      continue;
    }
    const documented = methods.get(method);
    assert.ok(documented, `${method} is not in docs/protocol.md`);
    assert.deepEqual([documented.kind, entry[1], entry[2]], ['request', documented.params, documented.result], method);
  }
});

test("every notification the client sends or listens to has the doc's direction and params", () => {
  for (const [name, kind] of [['ClientNotifications', 'client → server notification'], ['ServerNotifications', 'server → client notification']]) {
    for (const [method, params] of table(name)) {
      assert.deepEqual(methods.get(method), { kind, params, result: '—' }, method);
    }
  }
});

test('the features send and listen through rpc.ts, and declare no position or range of their own', () => {
  const sources = fs.readdirSync(path.join(CLIENT, 'src')).filter((f) => f.endsWith('.ts'));
  for (const file of sources) {
    const text = fs.readFileSync(path.join(CLIENT, 'src', file), 'utf8');
    if (file !== 'rpc.ts') assert.doesNotMatch(text, /\.(sendRequest|sendNotification|onNotification)\(/, file);
    if (file !== 'wire.ts') assert.doesNotMatch(text, /line: number;\s*character: number/, file);
  }
});
