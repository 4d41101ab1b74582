// The replacement preview's new code as one SVG image (pure).
//
// Why an image: a decoration's text cannot hold a newline, so "one `after` text per old line" piles the extra
// lines of a longer replacement onto the last old line and loses indentation. An SVG keeps every line, in the
// editor's font, with its indentation (spaces are preserved, tabs expanded), and is shown beside the struck
// old code as one `after` image on the unit's first line, laid over the empty space to the right.

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
  lines: string[]; // as drawn: tabs expanded
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

export function picture(newText: string, look: Look): Picture {
  const lines = newText.replace(/\n$/, '').split('\n').map((l) => expandTabs(l.replace(/\r$/, ''), look.tabSize));
  const pad = 6;
  const charWidth = look.fontSize * 0.6;
  const width = Math.ceil(Math.max(8, ...lines.map(cells)) * charWidth + 2 * pad + 4);
  const height = Math.ceil(lines.length * look.lineHeight + 2 * pad);
  const [bg, border, fg] = look.dark ? ['#1e3a1e', '#3fb950', '#d2f4d3'] : ['#e6ffec', '#2da44e', '#0b3d17'];
  const rows = lines
    .map((line, k) => {
      const y = pad + k * look.lineHeight + look.lineHeight * 0.75;
      return `<text x="${pad + 4}" y="${y.toFixed(1)}" xml:space="preserve">${xml(line)}</text>`;
    })
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="3" fill="${bg}" stroke="${border}"/>` +
    `<rect x="0.5" y="0.5" width="3" height="${height - 1}" fill="${border}"/>` +
    `<g font-family="${xml(look.fontFamily)}" font-size="${look.fontSize}" fill="${fg}">${rows}</g></svg>`;
  return { svg, width, height, lines };
}

export function dataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
