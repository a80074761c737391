import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { asProgressValue, ProgressTracker } from '../../src/progress';

describe('ProgressTracker', () => {
  it('is busy between begin and end and merges reports', () => {
    const tracker = new ProgressTracker();
    assert.equal(tracker.state().busy, false);
    tracker.update('t1', { kind: 'begin', title: 'Analysing kws' });
    const state = tracker.update('t1', { kind: 'report', message: 'ETDump', percentage: 40 });
    assert.deepEqual(state, { busy: true, message: 'Analysing kws: ETDump', percentage: 40 });
    assert.equal(tracker.update('t1', { kind: 'end' }).busy, false);
  });

  it('stays busy while any token is open', () => {
    const tracker = new ProgressTracker();
    tracker.update(1, { kind: 'begin', title: 'a' });
    tracker.update(2, { kind: 'begin', title: 'b' });
    assert.equal(tracker.update(1, { kind: 'end' }).message, 'b');
    assert.equal(tracker.clear().busy, false);
  });
});

describe('asProgressValue', () => {
  it('accepts work-done values and drops other fields', () => {
    assert.deepEqual(asProgressValue({ kind: 'report', message: 'x', percentage: 5, extra: 1 }), {
      kind: 'report',
      message: 'x',
      percentage: 5,
    });
  });

  it('rejects everything else', () => {
    assert.equal(asProgressValue({ kind: 'partial' }), undefined);
    assert.equal(asProgressValue([1]), undefined);
    assert.equal(asProgressValue(null), undefined);
  });
});
