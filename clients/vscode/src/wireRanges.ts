// The protocol's positions and ranges (wire.ts) to VS Code's and back. Both are 0-based UTF-16.
import * as vscode from 'vscode';

import type { Position, Range } from './wire';

export function vscodeRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export function wirePosition(p: vscode.Position): Position {
  return { line: p.line, character: p.character };
}

export function wireRange(r: vscode.Range): Range {
  return { start: wirePosition(r.start), end: wirePosition(r.end) };
}

/** Where the editor's cursor is. */
export function cursorOf(editor: vscode.TextEditor): Position {
  return wirePosition(editor.selection.active);
}
