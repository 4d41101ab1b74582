// What an edit does to a pending replacement preview (pure): one entirely above the struck lines moves the
// preview by the lines it added or removed; one after it leaves it alone; one that touches it ends it.
import type { Position, Range } from './wire';

export interface Change {
  range: Range;
  text: string;
}

function after(a: Position, b: Position): boolean {
  return a.line > b.line || (a.line === b.line && a.character > b.character);
}

/** `range` moved down by `lines` (up when negative), its columns kept. */
export function moveLines(range: Range, lines: number): Range {
  return {
    start: { line: range.start.line + lines, character: range.start.character },
    end: { line: range.end.line + lines, character: range.end.character },
  };
}

/** The struck range after `change`, or null when the change touched it (the preview no longer applies). */
export function afterChange(struck: Range, change: Change): Range | null {
  if (after(change.range.start, struck.end)) return struck;
  if (change.range.end.line < struck.start.line) {
    const delta = change.text.split('\n').length - 1 - (change.range.end.line - change.range.start.line);
    return moveLines(struck, delta);
  }
  return null;
}
