// Markers as the protocol sends them, and how the view words them (pure).

export const KINDS = ['comment', 'question', 'issue', 'bookmark'] as const;

export interface MarkerData {
  id: string;
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } } | null;
  note: string;
  kind: string;
  author: string;
  createdAt: string;
  status: string;
  contentChanged: boolean;
  missingReason?: string | null;
}

/** The codicon of a kind (the gutter uses the SVGs in media/). */
export function kindIcon(kind: string): string {
  return { comment: 'comment', question: 'question', issue: 'bug', bookmark: 'bookmark' }[kind] ?? 'comment';
}

/** A note's first line, short enough for a list. */
export function noteTitle(note: string, width = 60): string {
  const first = note.split('\n')[0].trim() || '(empty note)';
  return first.length <= width ? first : `${first.slice(0, width - 1)}…`;
}

/** Where a marker is, as the view says it: its lines, whether its code changed, or why it is missing. */
export function treeDescription(m: MarkerData): string {
  if (!m.range) {
    const reasons: Record<string, string> = {
      codeBlockDeleted: 'code deleted',
      missingOriginalCommit: 'original commit missing',
      missingOriginalLocation: 'original place unknown',
    };
    return `missing: ${reasons[m.missingReason ?? ''] ?? 'not found'}`;
  }
  const { start, end } = m.range;
  const lines = start.line === end.line ? `line ${start.line + 1}` : `lines ${start.line + 1}–${end.line + 1}`;
  return m.contentChanged ? `${lines} · changed` : lines;
}
