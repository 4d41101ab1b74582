// The kinds of marker, and how the view words a marker (pure).
import type { Marker } from './wire';

export const KINDS = ['comment', 'question', 'issue', 'bookmark'] as const;

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
export function treeDescription(m: Marker): string {
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

/** A marker's date in the user's locale: `Nov 23, 2026, 10:00 AM` (the raw text when it is not a date). */
export function localDate(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
  } catch {
    return date.toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
  }
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** How long ago, in the user's language: `now`, `5 minutes ago`, `yesterday`, `3 weeks ago`. */
export function relativeTime(iso: string, now: number, locale: string): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((then - now) / 1000);
  let format: Intl.RelativeTimeFormat;
  try {
    format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  } catch {
    format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  }
  if (Math.abs(seconds) < 45) return format.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}
