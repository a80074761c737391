import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { RestartPolicy } from '../../src/backoff';
import type { ServerState } from '../../src/statusText';
import { Supervisor } from '../../src/supervisor';

/** A fake world: a clock, timers fired by hand, and a server whose starts succeed or fail on demand. */
class World {
  now = 0;
  timers: { at: number; callback: () => void; cancelled: boolean }[] = [];
  states: ServerState[] = [];
  events: string[] = [];
  startOutcomes: (true | Error)[] = [];
  starts = 0;
  stops = 0;

  supervisor(policy = new RestartPolicy({ initialDelayMs: 100, maxDelayMs: 400, maxCrashes: 3, windowMs: 10_000, healthyRunMs: 5_000 })): Supervisor {
    return new Supervisor(
      {
        start: () => {
          this.starts += 1;
          const outcome = this.startOutcomes.shift() ?? true;
          return outcome === true ? Promise.resolve() : Promise.reject(outcome);
        },
        stop: () => {
          this.stops += 1;
          return Promise.resolve();
        },
        now: () => this.now,
        setTimer: (callback, delayMs) => {
          const timer = { at: this.now + delayMs, callback, cancelled: false };
          this.timers.push(timer);
          return {
            dispose: () => {
              timer.cancelled = true;
            },
          };
        },
        onState: (state) => this.states.push(state),
        onStartFailed: (error) => this.events.push(`start failed: ${(error as Error).message}`),
        onGaveUp: (crashes) => this.events.push(`gave up after ${crashes}`),
        onRestartScheduled: (delayMs, attempt) => this.events.push(`restart ${attempt} in ${delayMs}`),
      },
      policy,
    );
  }

  /** Advances the clock, firing due timers, then lets promises settle. */
  async advance(ms: number): Promise<void> {
    this.now += ms;
    for (const timer of this.timers.filter((t) => !t.cancelled && t.at <= this.now)) {
      timer.cancelled = true;
      timer.callback();
    }
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await Promise.resolve();
  }
}

describe('Supervisor', () => {
  it('starts once and reports running', async () => {
    const world = new World();
    const supervisor = world.supervisor();
    await supervisor.start();
    await supervisor.start();
    assert.equal(world.starts, 1);
    assert.deepEqual(world.states, ['starting', 'running']);
    assert.equal(supervisor.current, 'running');
  });

  it('restarts a crashed server after the backoff delay, doubling it', async () => {
    const world = new World();
    const supervisor = world.supervisor();
    await supervisor.start();
    supervisor.crashed();
    assert.equal(supervisor.current, 'restarting');
    await world.advance(99);
    assert.equal(world.starts, 1);
    await world.advance(1);
    assert.equal(world.starts, 2);
    assert.equal(supervisor.current, 'running');
    supervisor.crashed();
    await world.advance(200);
    assert.deepEqual(world.events, ['restart 1 in 100', 'restart 2 in 200']);
    assert.equal(world.starts, 3);
  });

  it('gives up after too many crashes and stays failed', async () => {
    const world = new World();
    const supervisor = world.supervisor();
    await supervisor.start();
    for (let i = 0; i < 3; i += 1) {
      supervisor.crashed();
      await world.advance(1000);
    }
    supervisor.crashed();
    assert.equal(supervisor.current, 'failed');
    assert.equal(world.events.at(-1), 'gave up after 4');
    await world.advance(10_000);
    assert.equal(world.starts, 4);
  });

  it('reports a start failure without retrying', async () => {
    const world = new World();
    world.startOutcomes = [new Error("No module named 'perfline'")];
    const supervisor = world.supervisor();
    await supervisor.start();
    assert.equal(supervisor.current, 'failed');
    assert.deepEqual(world.events, ["start failed: No module named 'perfline'"]);
    supervisor.crashed();
    await world.advance(10_000);
    assert.equal(world.starts, 1);
  });

  it('ignores crashes that are not of a running server', () => {
    const world = new World();
    const supervisor = world.supervisor();
    supervisor.crashed();
    assert.equal(world.timers.length, 0);
    assert.equal(supervisor.current, 'idle');
  });

  it('restart() cancels a pending restart, stops, starts and forgets crashes', async () => {
    const world = new World();
    const supervisor = world.supervisor();
    await supervisor.start();
    supervisor.crashed();
    await supervisor.restart();
    assert.equal(world.stops, 1);
    assert.equal(world.starts, 2);
    await world.advance(1000);
    assert.equal(world.starts, 2, 'the cancelled timer must not start a third run');
    supervisor.crashed();
    assert.equal(world.events.at(-1), 'restart 1 in 100');
  });

  it('does nothing after dispose', async () => {
    const world = new World();
    const supervisor = world.supervisor();
    await supervisor.start();
    supervisor.crashed();
    await supervisor.dispose();
    await world.advance(1000);
    assert.equal(world.starts, 1);
    assert.equal(supervisor.current, 'stopped');
    await supervisor.start();
    assert.equal(world.starts, 1);
  });
});
