// What makes a line a task and how a finished task is told (pure). The server's own rule is
// `@(run|task)\b\s*(?P<instruction>.*)$` with a non-empty instruction; this mirrors it.
import type { RunResult } from './wire';

const TRIGGER = /@(run|task)\b\s*(.*)$/;

export function instructionAt(line: string): string | undefined {
  const m = TRIGGER.exec(line);
  const instruction = m?.[2].trim();
  return instruction ? instruction : undefined;
}

export function isTaskLine(line: string): boolean {
  return instructionAt(line) !== undefined;
}

/** `task.py: applied, tests/test_calc.py: created` — or `no change`. */
export function summary(result: RunResult, relative: (uri: string) => string): string {
  return result.edits.map((e) => `${relative(e.uri)}: ${e.status}`).join(', ') || 'no change';
}
