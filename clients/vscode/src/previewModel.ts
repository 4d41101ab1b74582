// What an edit does to a pending replacement preview (pure): one entirely above the struck lines moves the
// preview by the lines it added or removed; one after it leaves it alone; one that touches it ends it.

export interface Lines {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface Change {
  range: Lines;
  text: string;
}

function after(a: { line: number; character: number }, b: { line: number; character: number }): boolean {
  return a.line > b.line || (a.line === b.line && a.character > b.character);
}

/** The struck range after `change`, or null when the change touched it (the preview no longer applies). */
export function afterChange(struck: Lines, change: Change): Lines | null {
  if (after(change.range.start, struck.end)) return struck;
  if (change.range.end.line < struck.start.line) {
    const delta = change.text.split('\n').length - 1 - (change.range.end.line - change.range.start.line);
    return {
      start: { line: struck.start.line + delta, character: struck.start.character },
      end: { line: struck.end.line + delta, character: struck.end.character },
    };
  }
  return null;
}
