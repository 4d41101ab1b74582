// What a finished task changed, as hunks to accept or reject one by one (pure).
//
// A review holds the text a file had before the task (its base). The hunks are always recomputed as the line
// difference between that base and the document now, so typing, undo and redo are reflected as they happen.
// Accepting a hunk moves it into the base; rejecting it writes its old lines back into the document.

export interface Hunk {
  oldStart: number; // first line in the base (0-based)
  oldLines: string[];
  newStart: number; // first line in the document now
  newLines: string[];
}

export interface TextEdit {
  start: number; // UTF-16 offsets into the document's text
  end: number;
  text: string;
}

/** Lines as `split('\n')` gives them: joined with '\n' they are the text again (a '\r' stays on its line). */
export function lines(text: string): string[] {
  return text.split('\n');
}

const MAX_CELLS = 4_000_000; // past this the middle of a change is one hunk (the table would be too big)

/** The line differences between `a` (base) and `b` (now), top to bottom. */
export function diffLines(a: readonly string[], b: readonly string[]): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    return [{ oldStart: head, oldLines: a.slice(head, head + n), newStart: head, newLines: b.slice(head, head + m) }];
  }
  // longest common subsequence of the middle, as a table of suffix lengths
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[head + i] === b[head + j]
          ? table[(i + 1) * width + j + 1] + 1
          : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const hunks: Hunk[] = [];
  let open: Hunk | undefined;
  let i = 0;
  let j = 0;
  const close = () => {
    if (open) hunks.push(open);
    open = undefined;
  };
  const hunk = () => (open ??= { oldStart: head + i, oldLines: [], newStart: head + j, newLines: [] });
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      close();
      i++;
      j++;
    } else if (j < m && (i === n || table[i * width + j + 1] >= table[(i + 1) * width + j])) {
      hunk().newLines.push(b[head + j++]);
    } else {
      hunk().oldLines.push(a[head + i++]);
    }
  }
  close();
  return hunks;
}

/** The base with `hunk` taken into it (the hunk accepted). */
export function accept(base: readonly string[], hunk: Hunk): string[] {
  return [...base.slice(0, hunk.oldStart), ...hunk.newLines, ...base.slice(hunk.oldStart + hunk.oldLines.length)];
}

/** The one edit that turns `before` into `after` (the common start and end left alone). */
export function minimalEdit(before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  let start = 0;
  const limit = Math.min(before.length, after.length);
  while (start < limit && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < limit - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

/** The edit that puts `hunk`'s old lines back into the document `now` (the hunk rejected). */
export function reject(now: readonly string[], hunk: Hunk): TextEdit | undefined {
  const after = [...now.slice(0, hunk.newStart), ...hunk.oldLines, ...now.slice(hunk.newStart + hunk.newLines.length)];
  return minimalEdit(now.join('\n'), after.join('\n'));
}

/** The hunk that holds `line` of the document now (a deletion holds the line it left its mark on). */
export function hunkAt(hunks: readonly Hunk[], line: number): number {
  return hunks.findIndex((h) => line >= h.newStart && line < h.newStart + Math.max(1, h.newLines.length));
}

/** `−3 +1` for a CodeLens. */
export function counts(hunk: Hunk): string {
  return [hunk.oldLines.length ? `−${hunk.oldLines.length}` : '', hunk.newLines.length ? `+${hunk.newLines.length}` : '']
    .filter(Boolean)
    .join(' ');
}
