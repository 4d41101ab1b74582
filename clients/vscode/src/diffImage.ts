// The replacement preview's new code as one SVG image, and where the editor draws it (pure).
//
// Why an image: a decoration's text cannot hold a newline, so "one `after` text per old line" piles the extra
// lines of a longer replacement onto the last old line and loses indentation. An SVG keeps every line, in the
// editor's font, with its indentation (spaces are preserved, tabs expanded) and syntax colours (highlight.ts).
//
// Where: right below the struck code, at its indentation, over the lines that follow (hidden until the preview
// is accepted or rejected); see `placement`.
import { DARK, highlight, LIGHT } from './highlight';

export interface Look {
  fontFamily: string;
  fontSize: number;
  lineHeight: number;
  tabSize: number;
  dark: boolean;
}

export interface Picture {
  svg: string;
  width: number;
  height: number;
  lines: string[]; // as drawn: tabs expanded, the shared indentation removed
  indent: number; // the indentation removed (cells)
}

export function expandTabs(line: string, tabSize: number): string {
  let out = '';
  for (const ch of line) {
    out += ch === '\t' ? ' '.repeat(tabSize - (out.length % tabSize)) : ch;
  }
  return out;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Width of a line in character cells: CJK and emoji take two. */
export function cells(line: string): number {
  let n = 0;
  for (const ch of line) {
    const code = ch.codePointAt(0) ?? 0;
    n += code >= 0x1100 && (code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) || code >= 0x1f300) ? 2 : 1;
  }
  return n;
}

/** The cells of leading space every non-blank line has. */
export function commonIndent(lines: string[]): number {
  const indents = lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length);
  return indents.length ? Math.min(...indents) : 0;
}

/** The new code drawn without the indentation all its lines share (the image is placed at that column). */
export function picture(newText: string, look: Look, languageId = ''): Picture {
  const expanded = newText.replace(/\n$/, '').split('\n').map((l) => expandTabs(l.replace(/\r$/, ''), look.tabSize));
  const indent = commonIndent(expanded);
  const lines = expanded.map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
  const pad = 6;
  const charWidth = look.fontSize * 0.6;
  const width = Math.ceil(Math.max(8, ...lines.map(cells)) * charWidth + 2 * pad + 4);
  const height = Math.ceil(lines.length * look.lineHeight + 2 * pad);
  const [bg, border] = look.dark ? ['#1e3a1e', '#3fb950'] : ['#e6ffec', '#2da44e'];
  const colours = look.dark ? DARK : LIGHT;
  const rows = highlight(lines, languageId)
    .map((tokens, k) => {
      const y = pad + k * look.lineHeight + look.lineHeight * 0.75;
      const spans = tokens.map((t) => `<tspan fill="${colours[t.kind]}">${xml(t.text)}</tspan>`).join('');
      return `<text x="${pad + 4}" y="${y.toFixed(1)}" xml:space="preserve">${spans}</text>`;
    })
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="3" fill="${bg}" stroke="${border}"/>` +
    `<rect x="0.5" y="0.5" width="3" height="${height - 1}" fill="${border}"/>` +
    `<g font-family="${xml(look.fontFamily)}" font-size="${look.fontSize}">${rows}</g></svg>`;
  return { svg, width, height, lines, indent };
}

export interface Place {
  indent: number; // the column the new code starts at (character cells)
  lines: number; // struck lines
}

/**
 * CSS for the image, laid out from the struck unit's first line (`left: 0; top: 0` is where that line starts):
 * right under the struck lines, at the new code's indentation (`ch` and `lh` are the editor's character width and
 * line height). Never to the right: an extension cannot learn how wide the editor is (the CSS box around a
 * line is only as wide as its text), so code drawn there can end up past the editor's edge.
 */
export function placement(p: Place): string {
  return [
    'none',
    'position: absolute',
    'left: 0',
    'top: 0',
    'z-index: 5',
    'pointer-events: none',
    `margin-left: ${p.indent}ch`,
    `margin-top: calc(${p.lines} * 1lh)`,
  ].join('; ');
}

export function dataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
