import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseSummary } from '../../src/protocol';
import { type StatusInput, statusView } from '../../src/statusText';

// As the server renders it (perfline/summary): the client formats no number.
const summary = parseSummary({
  job: 'kws',
  headline: ['2.04 ms', '1.8k cycles'],
  text: '2.04 ms · 1.8k cycles',
  metrics: ['inference_time: 2.04 ms', 'total_cycles: 1.8k cycles'],
  run: 'ExecuTorch CPU kernels (no delegate), measured, 10 runs',
});

const base: StatusInput = {
  server: 'running',
  busy: false,
  progressMessage: undefined,
  jobLabel: 'kws',
  summary,
  jobError: undefined,
};

describe('statusView', () => {
  it("shows the active job's model totals", () => {
    const view = statusView(base);
    assert.equal(view.text, '$(pulse) 2.04 ms · 1.8k cycles');
    assert.match(
      view.tooltip,
      /^perfline job: kws\nExecuTorch CPU kernels \(no delegate\), measured, 10 runs\ninference_time: 2\.04 ms\ntotal_cycles: 1\.8k cycles\n/,
    );
    assert.doesNotMatch(view.tooltip, /\[ms\]/); // the unit once
    assert.equal(view.command, 'perfline.selectJob');
    assert.equal(view.accessibilityLabel, 'perfline: 2.04 ms · 1.8k cycles');
  });

  it('spins while an analysis runs and says what it does', () => {
    const view = statusView({ ...base, busy: true, progressMessage: 'Analysing kws: parsing ETDump' });
    assert.equal(view.text, '$(sync~spin) 2.04 ms · 1.8k cycles');
    assert.match(view.tooltip, /Analysing: Analysing kws: parsing ETDump/);
    assert.equal(view.accessibilityLabel, 'perfline: 2.04 ms · 1.8k cycles (analysing)');
  });

  it('falls back to the job name without totals, and warns on job errors', () => {
    const view = statusView({ ...base, summary: undefined, jobError: 'bad etdump' });
    assert.equal(view.text, '$(warning) kws');
    assert.match(view.tooltip, /Last analysis failed: bad etdump/);
  });

  it('points to the log when the server is down', () => {
    const view = statusView({ ...base, server: 'failed' });
    assert.equal(view.isError, true);
    assert.equal(view.command, 'perfline.showLog');
    assert.equal(view.accessibilityLabel, 'perfline: failed');
  });

  it('spins while starting', () => {
    assert.equal(statusView({ ...base, server: 'restarting' }).text, '$(loading~spin) perfline');
  });
});
