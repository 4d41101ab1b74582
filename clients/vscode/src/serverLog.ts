// The Tether output channel shows each server log record once (pure).
//
// The server writes every log record to stderr, and sends Tether's own records to the client as
// `window/logMessage` too; the language client prints both into the channel. A stderr record whose text also
// arrives as a log message is dropped; one that does not (records of other libraries, output before the client
// was connected, a crash) is shown — held back a moment first, in case its log message comes after it.

/** A stderr line that starts a log record: `2026-11-23 10:00:00,123 INFO name: message`. */
const RECORD = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ (\S+: .*)$/;
/** A log message as the language client prints it: `[Info  - 10:00:00 AM] name: message`. */
const MESSAGE = /^\[[A-Za-z]+\s*- [^\]]*\] (.*)$/;

interface Held {
  key: string;
  text: string; // the record's lines, each ending in '\n'
  at: number; // when it arrived
  until: number; // shown from then on, if no log message matched it
}

export class LogDedup {
  private partial = '';
  private partialSince = 0;
  private held: Held[] = [];
  private forwarded: { key: string; until: number }[] = [];
  private current: Held | undefined; // the record whose continuation lines (a traceback) are still coming

  constructor(private readonly waitMs = 1000) {}

  /** A chunk of the server's stderr: what to show now. */
  stderr(chunk: string, now: number): string {
    const lines = (this.partial + chunk).split('\n');
    const rest = lines.pop() ?? '';
    if (rest && (!this.partial || lines.length)) this.partialSince = now;
    this.partial = rest;
    let out = '';
    for (const line of lines) {
      const m = RECORD.exec(line.replace(/\r$/, ''));
      if (m) {
        out += this.close();
        this.current = { key: m[1], text: `${line}\n`, at: now, until: now + this.waitMs };
      } else if (this.current) {
        this.current.text += `${line}\n`;
      } else {
        out += `${line}\n`; // not a log record: shown as it comes
      }
    }
    return out;
  }

  /** A log message line the client printed: its stderr copy is not shown. */
  message(line: string, now: number): void {
    const m = MESSAGE.exec(line.split('\n')[0]);
    if (!m) return;
    const key = m[1];
    for (const group of [this.current ? [this.current] : [], this.held]) {
      const k = group.findIndex((h) => h.key === key);
      if (k >= 0) {
        if (group[k] === this.current) this.current = undefined;
        else this.held.splice(k, 1);
        return;
      }
    }
    this.forwarded = this.forwarded.filter((f) => f.until > now);
    this.forwarded.push({ key, until: now + 5 * this.waitMs });
  }

  /** Records held long enough without their log message, and a last line that never got its line break. */
  due(now: number, flush = false): string {
    let out = '';
    if (this.current && (flush || this.current.until <= now)) out += this.close();
    const ready = this.held.filter((h) => flush || h.until <= now);
    this.held = this.held.filter((h) => !ready.includes(h));
    out += ready.map((h) => h.text).join('');
    if (this.partial && (flush || now - this.partialSince >= this.waitMs)) {
      out += `${this.partial}\n`;
      this.partial = '';
    }
    return out;
  }

  /** Anything still held back. */
  pending(): boolean {
    return Boolean(this.current || this.held.length || this.partial);
  }

  /** The record being read is complete: dropped when its message came first, else held. */
  private close(): string {
    const record = this.current;
    this.current = undefined;
    if (!record) return '';
    const k = this.forwarded.findIndex((f) => f.key === record.key && f.until > record.at);
    if (k >= 0) {
      this.forwarded.splice(k, 1);
      return '';
    }
    this.held.push(record);
    return '';
  }
}
