/**
 * Restart policy for a crashing server: exponential backoff with a cap, and giving up after too
 * many crashes in a short window. A run that stayed up long enough counts as healthy and resets
 * the history. Pure: the caller supplies the clock readings.
 */

export interface BackoffOptions {
  /** Delay before the first restart (ms). */
  readonly initialDelayMs: number;
  /** Upper bound of the delay (ms). */
  readonly maxDelayMs: number;
  /** Crashes allowed within `windowMs` before giving up. */
  readonly maxCrashes: number;
  readonly windowMs: number;
  /** A run at least this long resets the crash history. */
  readonly healthyRunMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 3 * 60_000,
  healthyRunMs: 60_000,
};

export type RestartDecision =
  | { readonly restart: true; readonly delayMs: number; readonly attempt: number }
  | { readonly restart: false; readonly crashes: number; readonly windowMs: number };

export class RestartPolicy {
  private crashTimes: number[] = [];

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  /**
   * Records a crash at `now` of a run that started at `startedAt` and says whether and when to
   * restart.
   */
  onCrash(now: number, startedAt: number): RestartDecision {
    if (now - startedAt >= this.options.healthyRunMs) {
      this.crashTimes = [];
    }
    this.crashTimes = this.crashTimes.filter((t) => now - t < this.options.windowMs);
    this.crashTimes.push(now);
    const attempt = this.crashTimes.length;
    if (attempt > this.options.maxCrashes) {
      return { restart: false, crashes: attempt, windowMs: this.options.windowMs };
    }
    const delayMs = Math.min(
      this.options.maxDelayMs,
      this.options.initialDelayMs * 2 ** (attempt - 1),
    );
    return { restart: true, delayMs, attempt };
  }

  /** Forget past crashes (after the user restarts the server by hand or changes settings). */
  reset(): void {
    this.crashTimes = [];
  }
}
