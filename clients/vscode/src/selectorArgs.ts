// What `tether/listSelectors` says of a selector, and typed text made into the arguments it declares (pure).
//
// Positions are typed as the status bar shows them ("Ln 9, Col 20": 1-based, a tab counting to the next tab stop,
// a character outside the BMP counting once), the same numbers `tether-lsp select` takes; the server wants LSP
// positions (0-based, UTF-16). The conversion is here, in both directions, so what the input box offers (the
// cursor's position) and what it sends agree with the status bar.

import type { Position, SelectorArg, SelectorInfo } from './wire';

/** The argument indexes of each (line, column) pair of the selectors that take positions. */
export const POSITIONS: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  selectAt: [[0, 1]],
  selectRange: [
    [0, 1],
    [2, 3],
  ],
};

/** A line's text, 0-based (undefined past the end of the document). */
export type LineText = (line: number) => string | undefined;

/** Where a position argument goes: its pair and whether it is the line or the column. */
function positionRole(selector: string, k: number): { pair: number; line: boolean } | undefined {
  const pairs = POSITIONS[selector];
  const pair = pairs?.findIndex(([l, c]) => l === k || c === k) ?? -1;
  return pairs && pair >= 0 ? { pair, line: pairs[pair][0] === k } : undefined;
}

/** The status bar's column (1-based) of a UTF-16 character offset in a line. */
export function statusColumn(text: string, character: number, tabSize: number): number {
  let column = 0;
  for (const ch of text.slice(0, Math.max(0, character))) {
    column = ch === '\t' ? (Math.floor(column / tabSize) + 1) * tabSize : column + 1;
  }
  return column + 1;
}

/** The UTF-16 character offset of a status bar column (inside a tab: the tab; past the end: the end). */
export function characterAt(text: string, column: number, tabSize: number): number {
  let at = 1;
  let offset = 0;
  for (const ch of text) {
    const next = ch === '\t' ? (Math.floor((at - 1) / tabSize) + 1) * tabSize + 1 : at + 1;
    if (column < next) return offset;
    at = next;
    offset += ch.length;
  }
  return offset;
}

/** A selector's arguments in the list of selectors: positions as the status bar's Ln and Col. */
export function argumentsSummary(info: SelectorInfo): string {
  const pairs = POSITIONS[info.name];
  if (pairs && pairs.length === 1) return 'Ln, Col (1-based, as in the status bar)';
  if (pairs) return 'start Ln, Col, end Ln, Col (1-based, as in the status bar)';
  return info.args.map((a) => `${a.name}: ${a.type}`).join(', ');
}

/** The input box's prompt for an argument: positions say they are the status bar's numbers. */
export function argumentPrompt(selector: string, arg: SelectorArg, k: number): string {
  const role = positionRole(selector, k);
  if (!role) return `${selector}: ${arg.name} (${arg.type})`;
  const which = role.line ? 'line, as "Ln" in the status bar' : 'column, as "Col" in the status bar';
  const where = POSITIONS[selector].length > 1 ? (role.pair === 0 ? 'start ' : 'end ') : '';
  return `${selector}: ${where}${which} (1-based; the cursor's is filled in)`;
}

/** What a position argument's box starts with: the cursor's position (selectAt), the selection's start and end
 *  (selectRange), as the status bar shows them; '' for other arguments. Positions are 0-based UTF-16. */
export function argumentDefault(
  selector: string,
  k: number,
  selection: { start: Position; end: Position; active: Position },
  lineText: LineText,
  tabSize: number,
): string {
  const role = positionRole(selector, k);
  if (!role) return '';
  const at = POSITIONS[selector].length > 1 ? (role.pair === 0 ? selection.start : selection.end) : selection.active;
  return String(role.line ? at.line + 1 : statusColumn(lineText(at.line) ?? '', at.character, tabSize));
}

/** Why a typed argument cannot be sent, or undefined when it can (positions: whole numbers from 1). */
export function argumentProblem(selector: string, k: number, text: string): string | undefined {
  if (!positionRole(selector, k)) return undefined;
  return /^\s*\d+\s*$/.test(text) && Number(text) >= 1 ? undefined : 'a whole number from 1, as in the status bar';
}

/** Arguments as typed text, converted to what the selector declares: `int`/`nat` as numbers, the rest as text.
 *  Positions are typed 1-based as the status bar shows them and sent 0-based in UTF-16 (with `lineText`, the
 *  column goes through the line's tabs and characters). Unknown selectors keep their text (the server's error
 *  names the selector). */
export function typedArgs(
  selector: string,
  texts: readonly string[],
  catalogue?: readonly SelectorInfo[],
  lineText?: LineText,
  tabSize = 4,
): (string | number)[] {
  const declared = catalogue?.find((s) => s.name === selector)?.args;
  const args: (string | number)[] = texts.map((text, k) => {
    const type = declared?.[k]?.type;
    const numeric = type === 'int' || type === 'nat';
    return numeric && /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
  });
  for (const [l, c] of declared ? (POSITIONS[selector] ?? []) : []) {
    const line = args[l];
    const column = args[c];
    if (typeof line !== 'number') continue; // text: the server's error names the argument
    args[l] = line - 1;
    if (typeof column === 'number' && column >= 1 && line >= 1) {
      const text = lineText?.(line - 1);
      args[c] = text === undefined ? column - 1 : characterAt(text, column, tabSize);
    }
  }
  return args;
}

/** A step of a chain typed at once: `selectNth:-1`, `selectAt:9,20` (a selector with several arguments takes
 *  them comma-separated; one with a single argument takes everything after the colon, commas included). */
export function parseStep(step: string, catalogue?: readonly SelectorInfo[]): { selector: string; args: string[] } {
  const colon = step.indexOf(':');
  if (colon < 0) return { selector: step, args: [] };
  const selector = step.slice(0, colon);
  const rest = step.slice(colon + 1);
  const declared = catalogue?.find((s) => s.name === selector)?.args;
  return { selector, args: declared && declared.length > 1 ? rest.split(',') : [rest] };
}
