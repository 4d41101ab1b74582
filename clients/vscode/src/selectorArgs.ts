// What `tether/listSelectors` says of a selector, and typed text made into the arguments it declares (pure).

export interface SelectorInfo {
  name: string;
  args: { name: string; type: string }[];
  description: string;
}

/** Arguments as typed text, converted to what the selector declares: `int`/`nat` as numbers, the rest as text.
 *  Unknown selectors keep their text (the server's error names the selector). */
export function typedArgs(selector: string, texts: readonly string[], catalogue?: readonly SelectorInfo[]): (string | number)[] {
  const declared = catalogue?.find((s) => s.name === selector)?.args;
  return texts.map((text, k) => {
    const type = declared?.[k]?.type;
    const numeric = type === 'int' || type === 'nat';
    return numeric && /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
  });
}
