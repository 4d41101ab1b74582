// The playground's shapes as the protocol sends them, and the one rule the panel owns: saving a prompt's
// variables keeps the other inputs stored with it (model, options, anything another client wrote). Pure.

export interface PromptItem {
  fileId: string;
  promptId: string;
  preview: string;
  anchor: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface PlaygroundState {
  file: { uri: string; fileId: string; languageId: string } | null;
  prompt: (PromptItem & { content: string; reason: string; variables?: string[]; role?: string | null }) | null;
  prompts: PromptItem[];
  pin: { fileId: string; promptId: string } | null;
  parseError: string | null;
}

export interface StoredRun {
  runId: string;
  createdAt: string;
  model: string;
  output: string;
  variables: Record<string, string>;
  finishReason: string | null;
  durationMs: number;
}

export type PanelMessage =
  | { type: 'ready' }
  | { type: 'pin' }
  | { type: 'unpin' }
  | { type: 'variables'; variables: Record<string, string> }
  | { type: 'run'; variables: Record<string, string> }
  | { type: 'cancel' };

/** The settings to store: what was saved, with `variables` updated by `changed` (string values only). */
export function mergeVariables(saved: Record<string, unknown> | null | undefined, changed: Record<string, string>): Record<string, unknown> {
  const base = saved && typeof saved === 'object' ? saved : {};
  const old = base.variables && typeof base.variables === 'object' ? (base.variables as Record<string, unknown>) : {};
  const strings = Object.fromEntries(Object.entries(old).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  return { ...base, variables: { ...strings, ...changed } };
}
