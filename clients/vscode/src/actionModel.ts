// Structural actions, the parts that need no editor (pure): the commands and what each asks the server, the
// targets (the Tether selection's node ids, else the editor's selections), the answer's edit checked against the
// documents' versions, what to select afterwards, the words of an error, and the mark's place kept through edits
// as offsets (VS Code gives each change's old offset and length, so no old text is needed).
import type { ActionTargets, Location, Range, TextEdit, WorkspaceEdit } from './wire';

export type Wrapper = 'try' | 'with' | 'if' | 'call';
export const WRAPPERS: readonly Wrapper[] = ['try', 'with', 'if', 'call'];

/** How a command gets its second place: none, the mark (move, bring), or two targets / target and mark (swap). */
export type Second = 'none' | 'mark' | 'swap';

export interface ActionCommand {
  id: string; // tether.action.<id>; its title and keys are in package.json
  action: string; // the protocol's action
  after: boolean;
  second: Second;
}

const command = (id: string, action: string, after = true, second: Second = 'none'): ActionCommand => ({ id, action, after, second });

/** Every action command (package.json contributes exactly these, plus tether.action.mark and .unmark). */
export const ACTION_COMMANDS: readonly ActionCommand[] = [
  command('remove', 'remove'),
  command('clone', 'clone'),
  command('cloneBefore', 'clone', false),
  command('moveUp', 'moveUp'),
  command('moveDown', 'moveDown'),
  command('insert', 'insert'),
  command('insertBefore', 'insert', false),
  command('wrap', 'wrap'),
  command('unwrap', 'unwrap'),
  command('move', 'move', true, 'mark'),
  command('moveBefore', 'move', false, 'mark'),
  command('bring', 'bring', true, 'mark'),
  command('bringBefore', 'bring', false, 'mark'),
  command('swap', 'swap', true, 'swap'),
];

/** What an action acts on: the Tether selection's node ids when there is one, else the editor's selections (an
 *  empty one is the cursor: the server takes the smallest node holding it). */
export function targetsOf(ids: readonly number[], selections: readonly Range[]): ActionTargets {
  return ids.length ? { cursorNodeIds: [...ids] } : { ranges: selections.map(copyRange) };
}

export function targetCount(targets: ActionTargets): number {
  return (targets.cursorNodeIds?.length ?? 0) + (targets.ranges?.length ?? 0);
}

/** One document's part of an answer. */
export interface DocumentEdits {
  uri: string;
  version: number | null;
  edits: TextEdit[];
}

/** The answer's edit per document (documentChanges, or the plain `changes` map some servers send). */
export function editsByDocument(edit: WorkspaceEdit): DocumentEdits[] {
  const out: DocumentEdits[] = (edit.documentChanges ?? []).map((c) => ({
    uri: c.textDocument.uri,
    version: c.textDocument.version,
    edits: c.edits,
  }));
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) out.push({ uri, version: null, edits });
  return out;
}

/** The documents the edit must not be applied to: open at another version than the one the edit is for, or not
 *  open at all (`versionOf` gives undefined). */
export function staleDocuments(changes: readonly DocumentEdits[], versionOf: (uri: string) => number | undefined): string[] {
  return changes.filter((c) => {
    const now = versionOf(c.uri);
    return now === undefined || (c.version !== null && c.version !== now);
  }).map((c) => c.uri);
}

/** Where to put the selections after an action: the produced ranges in the active document when it has any,
 *  else in the first document that has some. For insert, the cursor at each new empty spot's start. */
export function selectionPlan(produced: readonly Location[], activeUri: string | undefined, action: string): { uri: string; ranges: Range[] } | undefined {
  if (!produced.length) return undefined;
  const uri = produced.some((p) => p.uri === activeUri) ? (activeUri as string) : produced[0].uri;
  const ranges = produced.filter((p) => p.uri === uri).map((p) => copyRange(p.range));
  if (action === 'insert') return { uri, ranges: ranges.map((r) => ({ start: r.start, end: { ...r.start } })) };
  return { uri, ranges };
}

/** An error from the server (a JSON-RPC error: code, message, data) as one line for the user, without the field
 *  path the message starts with: `moveUp refused: the function is already the first of its container`. */
export function errorText(action: string, err: unknown): string {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; message?: unknown; data?: unknown };
  if (e.code === -32801) return `${action}: the document changed since it was selected; select again`;
  let message = typeof e.message === 'string' ? e.message : String(err);
  const data = typeof e.data === 'object' && e.data !== null ? (e.data as { field?: unknown; kind?: unknown }) : {};
  if (typeof data.field === 'string' && message.startsWith(`${data.field}: `)) message = message.slice(data.field.length + 2);
  return `${action}${data.kind === 'actionRefused' ? ' refused' : ''}: ${message}`;
}

/** A change of a document as VS Code reports it: the old text's offset and length, and the new text's length. */
export interface OffsetChange {
  rangeOffset: number;
  rangeLength: number;
  textLength: number;
}

/** Where an offset of the old text is after the changes of one event (they do not overlap, and each is given in
 *  the old text's offsets). An offset inside a replaced part goes to the replacement's start (`side` -1) or end
 *  (+1); at a change's edge it stays outside the change on that side. */
export function shiftOffset(offset: number, changes: readonly OffsetChange[], side: -1 | 1): number {
  const before = (c: OffsetChange, at: number) => {
    const end = c.rangeOffset + c.rangeLength;
    return end < at || (end === at && (c.rangeLength > 0 || side > 0));
  };
  const shift = (at: number) => changes.filter((c) => before(c, at)).reduce((sum, c) => sum + c.textLength - c.rangeLength, 0);
  const holding = changes.find((c) => c.rangeOffset < offset && offset < c.rangeOffset + c.rangeLength);
  if (!holding) return offset + shift(offset);
  return holding.rangeOffset + shift(holding.rangeOffset) + (side > 0 ? holding.textLength : 0);
}

/** A marked span through one event's changes: its start moves as a left edge, its end as a right edge, so text
 *  typed at either end stays outside; a span whose text is all replaced ends up empty where it was. */
export function shiftSpan(span: { start: number; end: number }, changes: readonly OffsetChange[]): { start: number; end: number } {
  const start = shiftOffset(span.start, changes, 1);
  const end = Math.max(start, shiftOffset(span.end, changes, -1));
  return { start, end };
}

function copyRange(r: Range): Range {
  return { start: { ...r.start }, end: { ...r.end } };
}
