// The protocol as this client sends and reads it, declared once: every feature takes its shapes from here. The
// Tether interfaces are written as docs/protocol.md "Every method and message shape" has them (test/wire.test.ts
// compares them field by field, and each method's params and result with the doc's table); the few standard LSP
// shapes the client builds itself are in src/lspShapes.ts, re-exported here. Positions are 0-based UTF-16, as the client negotiates them.
// Types only: nothing here runs.

// --- standard LSP (src/lspShapes.ts) ---------------------------------------------------------------------------

import type {
  integer,
  Position,
  Range,
  TextDocumentIdentifier,
  InlineCompletionParams,
  InlineCompletionItem,
  InlineCompletionList,
  VersionedTextDocumentIdentifier,
  OptionalVersionedTextDocumentIdentifier,
  TextEdit,
  TextDocumentEdit,
  WorkspaceEdit,
  Location,
} from './lspShapes';
export type {
  integer,
  Position,
  Range,
  TextDocumentIdentifier,
  InlineCompletionParams,
  InlineCompletionItem,
  InlineCompletionList,
  VersionedTextDocumentIdentifier,
  OptionalVersionedTextDocumentIdentifier,
  TextEdit,
  TextDocumentEdit,
  WorkspaceEdit,
  Location,
} from './lspShapes';

// --- documents and the editor ---------------------------------------------------------------------------------

export interface VersionedDocument {
  uri: string;
  version?: integer | null;
}

export interface PlaygroundDocumentRef {
  uri: string;
}

export interface ActiveEditorParams {
  textDocument?: PlaygroundDocumentRef | null;
  position?: Position | null;
}

export interface CursorParams {
  textDocument: PlaygroundDocumentRef;
  position: Position;
}

// --- replacement analysis ---------------------------------------------------------------------------------------

export interface AnalyzeOptions {
  enableReplacements?: boolean | null;
  minConfidence?: number | null;
}

export interface AnalyzeParams {
  textDocument: VersionedDocument;
  position: Position;
  completion: string;
  options?: AnalyzeOptions | null;
}

export interface Edit {
  range: Range;
  newText: string;
}

export interface LogicalUnit {
  type: string;
  identifier: string;
  column: integer;
}

export interface AnalyzeResult {
  mode: string;
  replaceRange: Range | null;
  replacedText: string | null;
  edit: Edit;
  insertText: string;
  confidence: number;
  showVisualDiff: boolean;
  replacedLines: integer;
  logicalUnit: LogicalUnit | null;
  strategy: string | null;
  reason: string;
  version: integer;
  warning?: string | null;
}

// --- structural selectors ---------------------------------------------------------------------------------------

export interface ApplySelectorParams {
  uri: string;
  selector: string;
  cursorNodeIds: integer[];
  args?: any[]; // each selector declares its own
  ranges?: Range[] | null;
}

export interface ApplySelectorResult {
  ranges: Range[]; // the doc's generated type is a map of maps: these are ranges
  cursorNodeIds: integer[];
}

export interface ListSelectorsParams {
  languageId?: string | null;
}

export interface SelectorArg {
  name: string;
  type: string;
}

export interface SelectorInfo {
  name: string;
  args: SelectorArg[];
  description: string;
}

export interface ListSelectorsResult {
  selectors: SelectorInfo[];
  kinds: string[];
}

// --- structural actions ------------------------------------------------------------------------------------------

export interface ApplyActionParams {
  textDocument: VersionedTextDocumentIdentifier;
  action: string;
  targets: ActionTargets;
  destination?: ActionDestination | null;
  after?: boolean;
  wrapper?: string | null;
  placeholder?: string | null;
}

export interface ApplyActionResult {
  edit: WorkspaceEdit;
  produced: Location[];
}

export interface ActionTargets {
  cursorNodeIds?: integer[];
  ranges?: Range[] | null;
}

export interface ActionDestination {
  cursorNodeIds?: integer[];
  ranges?: Range[] | null;
  textDocument?: VersionedTextDocumentIdentifier | null;
}

// --- markers ------------------------------------------------------------------------------------------------------

export interface CreateParams {
  textDocument: TextDocumentIdentifier;
  range: Range;
  note: string;
  kind?: string;
}

export interface Marker {
  id: string;
  uri: string;
  range: Range | null;
  note: string;
  kind: string;
  code: string;
  commitHashWhenCreated: string | null;
  createdAt: string;
  author: string;
  status: string;
  contentChanged: boolean;
  missingReason?: string | null;
}

export interface IdParams {
  id: string;
}

export interface DidChangeMarkers {
  uris: string[];
}

export interface ListParams {
  textDocument: TextDocumentIdentifier;
}

export interface MarkerList {
  markers: Marker[];
}

export interface WorkspaceParams {
  under?: string | null;
}

export interface FileMarkers {
  uri: string;
  markers: Marker[];
}

export interface WorkspaceMarkers {
  files: FileMarkers[];
}

export interface MarkersUpdateParams {
  id: string;
  note?: string | null;
  kind?: string | null;
  range?: Range | null;
  textDocument?: TextDocumentIdentifier | null;
}

// --- prompt playground ------------------------------------------------------------------------------------------

export interface FileInfo {
  uri: string;
  fileId: string;
  languageId: string;
}

export interface PromptItem {
  fileId: string;
  promptId: string;
  preview: string;
  range: Range;
  anchor: string;
}

export interface SelectedPrompt {
  fileId: string;
  promptId: string;
  preview: string;
  range: Range;
  anchor: string;
  content: string;
  reason: string;
  variables?: string[];
  role?: string | null;
}

export interface Pin {
  fileId: string;
  promptId: string;
}

export interface PlaygroundState {
  file: FileInfo | null;
  prompt: SelectedPrompt | null;
  prompts: PromptItem[];
  pin: Pin | null;
  parseError: string | null;
}

export interface RunOutput {
  runId: string;
  delta: string;
}

export interface GetSettingsParams {
  promptId: string;
}

export interface Empty {}

export interface PinParams {
  fileId: string;
  promptId: string;
}

export interface RunOptions {
  temperature?: number | null;
  maxTokens?: integer | null;
}

export interface PlaygroundRunParams {
  promptId: string;
  variables?: { [key: string]: any } | null;
  model?: string | null;
  options?: RunOptions | null;
}

export interface Usage {
  promptTokens: integer;
  completionTokens: integer;
}

export interface PlaygroundRunResult {
  runId: string;
  promptId: string;
  output: string;
  model: string;
  finishReason: string | null;
  durationMs: integer;
  usage?: Usage | null;
}

export interface RunsParams {
  promptId: string;
  limit?: integer | null;
}

export interface Message {
  role: string;
  content: string;
}

export interface StoredRun {
  runId: string;
  promptId: string;
  createdAt: string;
  model: string;
  prompt: string;
  variables: { [key: string]: string };
  messages: Message[];
  output: string;
  finishReason: string | null;
  durationMs: integer;
  usage?: Usage | null;
  temperature?: number | null;
  maxTokens?: integer | null;
}

export interface SetSettingsParams {
  promptId: string;
  settings: any; // the client's own inputs, stored as sent
}

// --- inline tasks -----------------------------------------------------------------------------------------------

export interface RunParams {
  textDocument: TextDocumentIdentifier;
  position: Position;
  workDoneToken?: string | integer | null;
}

export interface TaskEdit {
  uri: string;
  status: string;
  range?: Range | null;
}

export interface RunResult {
  sessionUri: string;
  edits: TaskEdit[];
}

// --- the methods ------------------------------------------------------------------------------------------------

/** Each request the client sends: its params and its result. */
export interface Requests {
  'tether/analyzeReplacement': { params: AnalyzeParams; result: AnalyzeResult };
  'tether/applyAction': { params: ApplyActionParams; result: ApplyActionResult };
  'tether/applySelector': { params: ApplySelectorParams; result: ApplySelectorResult };
  'tether/listSelectors': { params: ListSelectorsParams; result: ListSelectorsResult };
  'tether/markers/create': { params: CreateParams; result: Marker };
  'tether/markers/delete': { params: IdParams; result: null };
  'tether/markers/list': { params: ListParams; result: MarkerList };
  'tether/markers/listWorkspace': { params: WorkspaceParams; result: WorkspaceMarkers };
  'tether/markers/update': { params: MarkersUpdateParams; result: Marker };
  'tether/playground/getSettings': { params: GetSettingsParams; result: { [key: string]: any } | null };
  'tether/playground/getState': { params: Empty; result: PlaygroundState };
  'tether/playground/pin': { params: PinParams; result: PlaygroundState };
  'tether/playground/run': { params: PlaygroundRunParams; result: PlaygroundRunResult };
  'tether/playground/runs': { params: RunsParams; result: StoredRun[] };
  'tether/playground/setSettings': { params: SetSettingsParams; result: null };
  'tether/playground/unpin': { params: Empty; result: PlaygroundState };
  'tether/tasks/run': { params: RunParams; result: RunResult };
  'textDocument/inlineCompletion': { params: InlineCompletionParams; result: InlineCompletionList | null };
}

/** Each notification the client sends, with its params. */
export interface ClientNotifications {
  'tether/editor/didChangeActiveEditor': ActiveEditorParams;
  'tether/editor/didChangeCursor': CursorParams;
}

/** Each notification the server sends that the client listens to, with its params. */
export interface ServerNotifications {
  'tether/markers/didChange': DidChangeMarkers;
  'tether/playground/didChangeState': PlaygroundState;
  'tether/playground/didRunOutput': RunOutput;
}
