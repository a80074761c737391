/**
 * Keeps the last lines a server process wrote to stderr, so that a failure message can quote
 * them (e.g. "No module named perfline"). Pure; bounded memory.
 */

export class LogTail {
  private lines: string[] = [];
  private partial = '';

  constructor(private readonly maxLines = 40) {}

  append(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
    }
    if (this.lines.length > this.maxLines) {
      this.lines = this.lines.slice(this.lines.length - this.maxLines);
    }
  }

  /** The last `count` non-blank lines, oldest first (including an unterminated last line). */
  tail(count: number): string[] {
    const all = this.partial === '' ? this.lines : [...this.lines, this.partial];
    return all.filter((line) => line.trim() !== '').slice(-count);
  }

  clear(): void {
    this.lines = [];
    this.partial = '';
  }
}

/**
 * The most telling line of a Python failure: the last `SomethingError: ...` line, else the last
 * non-blank line.
 */
export function keyLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i] ?? '';
    if (/^[A-Za-z_][\w.]*(Error|Exception)\b/.test(line.trim())) {
      return line.trim();
    }
  }
  const last = lines[lines.length - 1];
  return last === undefined ? undefined : last.trim();
}
