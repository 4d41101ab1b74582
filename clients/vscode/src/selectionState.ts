// Structural selection state per document, as the protocol wants it: the client holds the cursor node ids between
// calls; a user's own selection change or an edit clears them; our own programmatic selection does not. A
// selector that finds nothing (Next Sibling at the last one) changes nothing: the cursors, the selection and the
// "N cursors" status stay, so the next selector continues from the same place.
//
// Why compare selections instead of a "pending" flag around the assignment: in VS Code the selection change
// event for `editor.selections = …` reaches the extension host asynchronously (after a round trip through the
// renderer), so a flag set and cleared around the assignment misses it. We remember the selections we set and
// treat the first event that reports exactly those as ours. A chain's steps can be answered faster than those
// events come: every selection we set and have not yet heard of is remembered, in order, and an event that reports
// one of them is ours (the ones set before it are then forgotten: their events, if any, came or never will).

export interface Span {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

export function key(spans: readonly Span[]): string {
  return spans.map((s) => `${s.startLine}:${s.startCharacter}-${s.endLine}:${s.endCharacter}`).join(',');
}

export class SelectionState {
  private readonly cursors = new Map<string, number[]>();
  private readonly expected = new Map<string, string[]>();

  /** The cursor node ids to send for a document: empty means "from the root" (or from the selection). */
  ids(uri: string): number[] {
    return this.cursors.get(uri) ?? [];
  }

  has(uri: string): boolean {
    return this.cursors.has(uri);
  }

  count(uri: string): number | undefined {
    return this.cursors.get(uri)?.length;
  }

  /** A selector answered: keep its ids and expect our own selection event. Returns false when it found nothing:
   *  then nothing changes (the editor's selection is not set either, so no event comes). */
  applied(uri: string, ids: readonly number[], selected: readonly Span[]): boolean {
    if (ids.length === 0) return false;
    this.cursors.set(uri, [...ids]);
    this.expected.set(uri, [...(this.expected.get(uri) ?? []), key(selected)]);
    return true;
  }

  /** A selection change event: ours (the selections we set) keeps the state; any other clears it.
   *  Returns whether the state was cleared. */
  selectionChanged(uri: string, spans: readonly Span[]): boolean {
    const mine = this.expected.get(uri) ?? [];
    const at = mine.indexOf(key(spans));
    if (at >= 0) {
      if (at === mine.length - 1) this.expected.delete(uri);
      else this.expected.set(uri, mine.slice(at + 1));
      return false;
    }
    return this.reset(uri);
  }

  /** The document changed: its ids are stale (the server gives every version new ids). */
  edited(uri: string): boolean {
    return this.reset(uri);
  }

  reset(uri: string): boolean {
    this.expected.delete(uri);
    return this.cursors.delete(uri);
  }

  forget(uri: string): void {
    this.reset(uri);
  }
}
