// The rules the playground panel owns: saving a prompt's inputs (variables, model, temperature, max tokens) keeps
// whatever else is stored with it; inputs typed in the panel become run parameters; where the cursor goes to
// select a prompt from the list; two runs side by side; what the output area shows for the prompt on view (its own
// run streaming, or its last answer, never another prompt's). The protocol's shapes are in wire.ts.
// Pure; the functions the panel's page uses are self-contained (it gets their source).
import type { Position, Range, RunOptions, StoredRun } from './wire';

/** The model and its parameters as typed in the panel ('' = the default: the prompt's saved value or the setting). */
export interface ModelInputs {
  model: string;
  temperature: string;
  maxTokens: string;
}

export type PanelMessage =
  | { type: 'ready' }
  | { type: 'pin' }
  | { type: 'unpin' }
  | { type: 'variables'; variables: Record<string, string>; inputs?: ModelInputs }
  | { type: 'run'; variables: Record<string, string>; inputs?: ModelInputs }
  | { type: 'reveal'; promptId: string }
  | { type: 'cancel' };

/** The settings to store: what was saved, with `variables` updated by `changed` (string values only). */
export function mergeVariables(saved: Record<string, unknown> | null | undefined, changed: Record<string, string>): Record<string, unknown> {
  const base = saved && typeof saved === 'object' ? saved : {};
  const old = base.variables && typeof base.variables === 'object' ? (base.variables as Record<string, unknown>) : {};
  const strings = Object.fromEntries(Object.entries(old).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  return { ...base, variables: { ...strings, ...changed } };
}

/** The stored settings with the model inputs typed in the panel: blank ones are removed (the default applies). */
export function mergeInputs(settings: Record<string, unknown>, inputs: ModelInputs | undefined): Record<string, unknown> {
  if (!inputs) return settings;
  const out: Record<string, unknown> = { ...settings };
  const model = inputs.model.trim();
  if (model) out.model = model;
  else delete out.model;
  const old = out.options && typeof out.options === 'object' ? (out.options as Record<string, unknown>) : {};
  const options: Record<string, unknown> = { ...old };
  const temperature = number(inputs.temperature);
  const maxTokens = number(inputs.maxTokens);
  if (temperature === undefined) delete options.temperature;
  else options.temperature = temperature;
  if (maxTokens === undefined) delete options.maxTokens;
  else options.maxTokens = Math.round(maxTokens);
  if (Object.keys(options).length) out.options = options;
  else delete out.options;
  return out;
}

/** What the panel shows for stored settings: the model and its parameters as text ('' when not saved). */
export function inputsOf(settings: Record<string, unknown> | null | undefined): ModelInputs {
  const s = settings && typeof settings === 'object' ? settings : {};
  const options = s.options && typeof s.options === 'object' ? (s.options as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim()) ? String(v) : '');
  return { model: typeof s.model === 'string' ? s.model : '', temperature: text(options.temperature), maxTokens: text(options.maxTokens) };
}

/** `tether/playground/run`'s model and options for what was typed (nothing typed: the saved or default ones). */
export function runParameters(inputs: ModelInputs | undefined): { model?: string; options?: RunOptions } {
  if (!inputs) return {};
  const out: { model?: string; options?: RunOptions } = {};
  if (inputs.model.trim()) out.model = inputs.model.trim();
  const temperature = number(inputs.temperature);
  const maxTokens = number(inputs.maxTokens);
  if (temperature !== undefined || maxTokens !== undefined) {
    out.options = {};
    if (temperature !== undefined) out.options.temperature = temperature;
    if (maxTokens !== undefined) out.options.maxTokens = Math.round(maxTokens);
  }
  return out;
}

function number(text: string): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Where to put the cursor to select a prompt: just inside its range (its first character opens the string). */
export function insidePrompt(range: Range): Position {
  const sameLine = range.start.line === range.end.line;
  const room = sameLine ? range.end.character - range.start.character : Infinity;
  return { line: range.start.line, character: range.start.character + (room > 1 ? 1 : 0) };
}

/** Two runs' outputs line by line, each line marked when the other output does not have it. */
export function compareOutputs(a: string, b: string): { left: { text: string; differs: boolean }[]; right: { text: string; differs: boolean }[] } {
  const left = a.split('\n');
  const right = b.split('\n');
  const inLeft = new Set(left);
  const inRight = new Set(right);
  return {
    left: left.map((text) => ({ text, differs: !inRight.has(text) })),
    right: right.map((text) => ({ text, differs: !inLeft.has(text) })),
  };
}

/** A run in one line (the runs list, the comparison, under the output): when, the model and the parameters it ran
 *  with (none when null or absent: the model's default), how it ended when not normally, how long it took, the
 *  tokens. `when` formats the ISO date. */
export function runSummary(r: StoredRun, when: (iso: string) => string = (iso) => iso): string {
  const parts = [when(r.createdAt), r.model];
  if (typeof r.temperature === 'number') parts.push(`temperature ${r.temperature}`);
  if (typeof r.maxTokens === 'number') parts.push(`max tokens ${r.maxTokens}`);
  if (r.finishReason && r.finishReason !== 'stop') parts.push(r.finishReason === 'length' ? 'cut at max tokens' : r.finishReason);
  parts.push(`${r.durationMs} ms`);
  if (r.usage) parts.push(`${r.usage.promptTokens}+${r.usage.completionTokens} tokens`);
  return parts.join(' · ');
}

/** The run the panel started: its prompt, its answer so far, and once over without an answer, why. */
export interface LiveRun {
  promptId: string;
  anchor: string;
  text: string;
  ended?: string; // 'Cancelled.' or the error: the partial answer stays on view with it
}

/** What the output area shows for the prompt on view: `output` null hides it. */
export interface OutputView {
  output: string | null;
  status: string;
  error: string;
  canRun: boolean;
  canCancel: boolean;
}

/** The output area of prompt `promptId`: its own run while it streams (or just stopped), else its last stored run
 *  (`last`, newest of its runs). Another prompt's run is never shown here: while one streams, this prompt says
 *  so, and neither runs (one run at a time) nor cancels it. */
export function outputView(promptId: string, live: LiveRun | null, last: StoredRun | undefined, summary: (r: StoredRun) => string): OutputView {
  if (live && live.promptId === promptId) {
    if (live.ended === undefined) return { output: live.text, status: 'Running…', error: '', canRun: false, canCancel: true };
    return { output: live.text || null, status: '', error: live.ended, canRun: true, canCancel: false };
  }
  const shown = last ? { output: last.output, status: summary(last) } : { output: null, status: '' };
  if (live && live.ended === undefined) {
    const note = `${live.anchor} is running: go back to it to follow or cancel it.`;
    return { output: shown.output, status: shown.status ? `${shown.status} — ${note}` : note, error: '', canRun: false, canCancel: false };
  }
  return { ...shown, error: '', canRun: true, canCancel: false };
}
