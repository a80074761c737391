/**
 * Tracks the server's work-done progress (`$/progress` begin/report/end per token) and says
 * whether an analysis is running, with the latest title and message. Pure.
 */

export interface ProgressValue {
  readonly kind: 'begin' | 'report' | 'end';
  readonly title?: string;
  readonly message?: string;
  readonly percentage?: number;
}

export interface ProgressState {
  readonly busy: boolean;
  readonly message: string | undefined;
  readonly percentage: number | undefined;
}

interface Entry {
  title: string;
  message: string | undefined;
  percentage: number | undefined;
}

export class ProgressTracker {
  private readonly active = new Map<string, Entry>();

  update(token: string | number, value: ProgressValue): ProgressState {
    const key = String(token);
    if (value.kind === 'end') {
      this.active.delete(key);
    } else {
      const entry = this.active.get(key) ?? { title: '', message: undefined, percentage: undefined };
      if (value.title !== undefined) {
        entry.title = value.title;
      }
      if (value.message !== undefined) {
        entry.message = value.message;
      }
      if (value.percentage !== undefined) {
        entry.percentage = value.percentage;
      }
      this.active.set(key, entry);
    }
    return this.state();
  }

  /** Forget everything (the server went away). */
  clear(): ProgressState {
    this.active.clear();
    return this.state();
  }

  state(): ProgressState {
    const entries = [...this.active.values()];
    const last = entries[entries.length - 1];
    if (last === undefined) {
      return { busy: false, message: undefined, percentage: undefined };
    }
    const text = [last.title, last.message].filter((s) => s !== undefined && s !== '').join(': ');
    return { busy: true, message: text === '' ? undefined : text, percentage: last.percentage };
  }
}

/** Narrows an untyped `$/progress` value; `undefined` when it is not a work-done progress. */
export function asProgressValue(raw: unknown): ProgressValue | undefined {
  if (typeof raw !== 'object' || raw === null) {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  if (r.kind !== 'begin' && r.kind !== 'report' && r.kind !== 'end') {
    return undefined;
  }
  return {
    kind: r.kind,
    ...(typeof r.title === 'string' ? { title: r.title } : {}),
    ...(typeof r.message === 'string' ? { message: r.message } : {}),
    ...(typeof r.percentage === 'number' ? { percentage: r.percentage } : {}),
  };
}
