// Syntax colours for code drawn outside the editor's text (the replacement preview image): a small tokenizer
// for Python and YAML with the colours of VS Code's default light and dark themes (pure).
//
// The extension API gives no access to the editor's own tokens, so this mirrors what the default themes paint:
// keywords, strings, comments, numbers, function and class names, YAML keys and values.

export type Kind = 'plain' | 'keyword' | 'control' | 'string' | 'comment' | 'number' | 'function' | 'class' | 'key' | 'value';

export interface Token {
  text: string;
  kind: Kind;
}

export const LIGHT: Record<Kind, string> = {
  plain: '#1f1f1f',
  keyword: '#0000ff',
  control: '#af00db',
  string: '#a31515',
  comment: '#008000',
  number: '#098658',
  function: '#795e26',
  class: '#267f99',
  key: '#800000',
  value: '#0000ff',
};

export const DARK: Record<Kind, string> = {
  plain: '#d4d4d4',
  keyword: '#569cd6',
  control: '#c586c0',
  string: '#ce9178',
  comment: '#6a9955',
  number: '#b5cea8',
  function: '#dcdcaa',
  class: '#4ec9b0',
  key: '#569cd6',
  value: '#ce9178',
};

const CONTROL = new Set(
  'if elif else for while return break continue try except finally raise with yield await pass import from match case'.split(' '),
);
const KEYWORD = new Set(
  'def class lambda and or not in is None True False global nonlocal del async assert as self cls'.split(' '),
);
const BUILTIN = new Set(
  'abs all any bool dict enumerate filter float getattr hasattr int isinstance len list map max min open print range repr round set sorted str sum super tuple type zip'.split(
    ' ',
  ),
);

const PY_TOKEN =
  /(#.*$)|([rRbBuUfF]{0,2}(?:"""|'''|"|'))|(\b(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?)\b)|(@[\w.]+)|([A-Za-z_]\w*)|(\s+|[^\w\s#"'@]+|.)/gy;

/** Python lines, a string left open at a line's end carried into the next (triple quotes). */
function python(lines: string[]): Token[][] {
  let open: string | undefined; // the quote of a string still open
  const out: Token[][] = [];
  for (const line of lines) {
    const tokens: Token[] = [];
    let at = 0;
    let previous = '';
    if (open) {
      const end = line.indexOf(open);
      if (end < 0) {
        out.push([{ text: line, kind: 'string' }]);
        continue;
      }
      tokens.push({ text: line.slice(0, end + open.length), kind: 'string' });
      at = end + open.length;
      open = undefined;
    }
    PY_TOKEN.lastIndex = at;
    while (PY_TOKEN.lastIndex < line.length) {
      const start = PY_TOKEN.lastIndex;
      const m = PY_TOKEN.exec(line);
      if (!m) break;
      const [text, comment, quote, number, decorator, word] = m;
      if (comment) tokens.push({ text, kind: 'comment' });
      else if (quote) {
        const q = quote.replace(/^[rRbBuUfF]+/, '');
        const close = findClose(line, start + quote.length, q);
        if (close < 0 && q.length === 3) {
          tokens.push({ text: line.slice(start), kind: 'string' });
          open = q;
          PY_TOKEN.lastIndex = line.length;
        } else {
          const end = close < 0 ? line.length : close + q.length;
          tokens.push({ text: line.slice(start, end), kind: 'string' });
          PY_TOKEN.lastIndex = end;
        }
      } else if (number) tokens.push({ text, kind: 'number' });
      else if (decorator) tokens.push({ text, kind: 'function' });
      else if (word) {
        const next = line.slice(PY_TOKEN.lastIndex).match(/^\s*\(/);
        const kind: Kind =
          previous === 'def' ? 'function'
          : previous === 'class' ? 'class'
          : CONTROL.has(word) ? 'control'
          : KEYWORD.has(word) ? 'keyword'
          : next && (BUILTIN.has(word) || /^[a-z_]/.test(word)) ? 'function'
          : next && /^[A-Z]/.test(word) ? 'class'
          : 'plain';
        tokens.push({ text, kind });
        previous = word;
        continue;
      } else tokens.push({ text, kind: 'plain' });
      if (text.trim()) previous = '';
    }
    out.push(merge(tokens));
  }
  return out;
}

function findClose(line: string, from: number, quote: string): number {
  for (let k = from; k < line.length; k++) {
    if (line[k] === '\\') k++;
    else if (line.startsWith(quote, k)) return k;
  }
  return -1;
}

const YAML_LINE = /^(\s*(?:-\s+)*)((?:"[^"]*"|'[^']*'|[^\s#'"][^:#]*?)\s*:)(?=\s|$)(.*)$/;

function yamlValue(text: string): Token[] {
  const comment = text.search(/(^|\s)#/);
  const body = comment < 0 ? text : text.slice(0, comment);
  const rest = comment < 0 ? '' : text.slice(comment);
  const tokens: Token[] = [];
  const lead = body.match(/^\s*(?:-\s+)*/)?.[0] ?? '';
  tokens.push({ text: lead, kind: 'plain' });
  const value = body.slice(lead.length);
  const trimmed = value.trim();
  const kind: Kind =
    /^["']/.test(trimmed) ? 'string'
    : /^(-?\d[\d_.]*|true|false|null|yes|no|~)$/i.test(trimmed) ? 'number'
    : /^[|>][-+]?$/.test(trimmed) || !trimmed ? 'plain'
    : 'value';
  tokens.push({ text: value, kind });
  if (rest) tokens.push({ text: rest, kind: 'comment' });
  return tokens;
}

function yaml(lines: string[]): Token[][] {
  return lines.map((line) => {
    if (/^\s*#/.test(line)) return [{ text: line, kind: 'comment' as Kind }];
    const m = YAML_LINE.exec(line);
    if (!m) return merge(yamlValue(line));
    return merge([{ text: m[1], kind: 'plain' }, { text: m[2].replace(/:$/, ''), kind: 'key' }, { text: ':', kind: 'plain' }, ...yamlValue(m[3])]);
  });
}

function merge(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (!t.text) continue;
    const last = out[out.length - 1];
    if (last && last.kind === t.kind) last.text += t.text;
    else out.push({ ...t });
  }
  return out;
}

/** Each line's tokens; a language without rules is plain text. */
export function highlight(lines: string[], languageId: string): Token[][] {
  if (languageId === 'python') return python(lines);
  if (['yaml', 'ansible', 'dockercompose', 'github-actions-workflow', 'helm'].includes(languageId)) return yaml(lines);
  return lines.map((line) => (line ? [{ text: line, kind: 'plain' as Kind }] : []));
}
