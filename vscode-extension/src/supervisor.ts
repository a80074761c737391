/**
 * Keeps the server running: starts it, restarts it with backoff when it crashes, gives up when it
 * keeps crashing, and reports every state change. No `vscode` import: the language client is
 * reached through the injected `start`/`stop`, time through `now`/`setTimer`, so the state machine
 * is unit-tested with fakes.
 */

import { RestartPolicy } from './backoff';
import type { ServerState } from './statusText';

export interface Timer {
  dispose(): void;
}

export interface SupervisorDeps {
  /** Starts the server and the client; rejects when it cannot start. */
  start(): Promise<void>;
  /** Stops the client and the server process; never rejects. */
  stop(): Promise<void>;
  now(): number;
  setTimer(callback: () => void, delayMs: number): Timer;
  onState(state: ServerState): void;
  /** The server could not start at all (bad interpreter, perfline missing, ...). */
  onStartFailed(error: unknown): void;
  /** The server crashed too often; automatic restarts stopped. */
  onGaveUp(crashes: number, windowMs: number): void;
  /** A restart is scheduled (for the log). */
  onRestartScheduled(delayMs: number, attempt: number): void;
}

export class Supervisor {
  private state: ServerState = 'idle';
  private startedAt = 0;
  private timer: Timer | undefined;
  private disposed = false;
  /** Increases with each start so that late callbacks of an old run are ignored. */
  private generation = 0;

  constructor(
    private readonly deps: SupervisorDeps,
    private readonly policy: RestartPolicy = new RestartPolicy(),
  ) {}

  get current(): ServerState {
    return this.state;
  }

  /** Starts the server (no-op while it is starting or running). */
  async start(): Promise<void> {
    if (this.disposed || this.state === 'starting' || this.state === 'running') {
      return;
    }
    await this.launch('starting');
  }

  /** Stops and starts again, forgetting past crashes (user command or settings change). */
  async restart(): Promise<void> {
    if (this.disposed) {
      return;
    }
    this.cancelTimer();
    this.policy.reset();
    this.generation += 1;
    this.setState('stopped');
    await this.deps.stop();
    await this.launch('starting');
  }

  /** The connection to a running server closed without being asked to: maybe restart. */
  crashed(): void {
    if (this.disposed || this.state !== 'running') {
      return;
    }
    const decision = this.policy.onCrash(this.deps.now(), this.startedAt);
    if (!decision.restart) {
      this.setState('failed');
      this.deps.onGaveUp(decision.crashes, decision.windowMs);
      return;
    }
    this.setState('restarting');
    this.deps.onRestartScheduled(decision.delayMs, decision.attempt);
    const generation = this.generation;
    this.timer = this.deps.setTimer(() => {
      this.timer = undefined;
      if (generation === this.generation && !this.disposed) {
        void this.launch('restarting');
      }
    }, decision.delayMs);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.cancelTimer();
    this.generation += 1;
    await this.deps.stop();
    this.setState('stopped');
  }

  private async launch(state: 'starting' | 'restarting'): Promise<void> {
    this.generation += 1;
    const generation = this.generation;
    this.setState(state);
    try {
      await this.deps.start();
    } catch (error) {
      if (generation === this.generation && !this.disposed) {
        this.setState('failed');
        this.deps.onStartFailed(error);
      }
      return;
    }
    if (generation === this.generation && !this.disposed) {
      this.startedAt = this.deps.now();
      this.setState('running');
    }
  }

  private cancelTimer(): void {
    this.timer?.dispose();
    this.timer = undefined;
  }

  private setState(state: ServerState): void {
    if (this.state !== state) {
      this.state = state;
      this.deps.onState(state);
    }
  }
}
