// The standard LSP shapes this client builds or reads itself (Tether's own are in wire.ts, which re-exports
// these). Positions are 0-based UTF-16, as the client negotiates them. Types only: nothing here runs.

export type integer = number;

export interface Position {
  line: integer;
  character: integer;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextDocumentIdentifier {
  uri: string;
}

export interface InlineCompletionParams {
  textDocument: TextDocumentIdentifier;
  position: Position;
  context: { triggerKind: 1 | 2 }; // 1: asked for (Invoke), 2: automatic
}

export interface InlineCompletionItem {
  insertText: string;
  range?: Range;
}

export interface InlineCompletionList {
  items: InlineCompletionItem[];
}

export interface VersionedTextDocumentIdentifier {
  uri: string;
  version: integer;
}

export interface OptionalVersionedTextDocumentIdentifier {
  uri: string;
  version: integer | null;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface TextDocumentEdit {
  textDocument: OptionalVersionedTextDocumentIdentifier;
  edits: TextEdit[];
}

export interface WorkspaceEdit {
  documentChanges?: TextDocumentEdit[]; // what tether/applyAction answers (no file operations)
  changes?: { [uri: string]: TextEdit[] };
}

export interface Location {
  uri: string;
  range: Range;
}
