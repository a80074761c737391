import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { RestartPolicy } from '../../src/backoff';

const options = { initialDelayMs: 1000, maxDelayMs: 5000, maxCrashes: 4, windowMs: 60_000, healthyRunMs: 30_000 };

describe('RestartPolicy', () => {
  it('doubles the delay up to the cap', () => {
    const policy = new RestartPolicy(options);
    const delays = [0, 1, 2, 3].map((i) => {
      const decision = policy.onCrash(1000 + i * 10, 1000 + i * 10 - 5);
      assert.ok(decision.restart);
      return decision.delayMs;
    });
    assert.deepEqual(delays, [1000, 2000, 4000, 5000]);
  });

  it('gives up after too many crashes in the window', () => {
    const policy = new RestartPolicy(options);
    for (let i = 0; i < 4; i += 1) {
      policy.onCrash(i * 100, i * 100 - 10);
    }
    const decision = policy.onCrash(500, 490);
    assert.deepEqual(decision, { restart: false, crashes: 5, windowMs: 60_000 });
  });

  it('forgets crashes older than the window', () => {
    const policy = new RestartPolicy(options);
    for (let i = 0; i < 4; i += 1) {
      policy.onCrash(i * 100, i * 100 - 10);
    }
    const decision = policy.onCrash(70_000, 69_990);
    assert.ok(decision.restart);
    assert.equal(decision.attempt, 1);
  });

  it('resets after a healthy run', () => {
    const policy = new RestartPolicy(options);
    policy.onCrash(0, -10);
    policy.onCrash(100, 90);
    const decision = policy.onCrash(40_000, 5_000);
    assert.equal(decision.restart && decision.delayMs, 1000);
  });

  it('reset() forgets everything', () => {
    const policy = new RestartPolicy(options);
    policy.onCrash(0, -10);
    policy.onCrash(10, 5);
    policy.reset();
    assert.equal(policy.onCrash(20, 15).restart && 1, 1);
  });
});
