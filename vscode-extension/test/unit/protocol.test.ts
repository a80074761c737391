import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  annotationsAt,
  baselineMessage,
  blockArguments,
  fileSafe,
  jobArgument,
  parseBaselineAnswer,
  parseBreakdown,
  parseSummary,
  parseLineAnnotations,
  reanalyzeParams,
  describeChange,
  resultDocument,
} from '../../src/protocol';

describe('parseLineAnnotations', () => {
  it('reads the 1-based current lines and groups entity ids by job', () => {
    const annotations = parseLineAnnotations({
      file: '/w/dscnn.py',
      lines: [
        {
          line: 42,
          currentLine: 44,
          label: '0.42 ms p50 · 21%',
          entities: [
            { job: 'kws', entityId: 'code_line/a' },
            { job: 'kws', entityId: 'code_line/a' },
            { job: 'est', entityId: 'code_line/z' },
          ],
        },
        { line: 12, currentLine: 12, entities: [{ job: 'kws', entityId: 'code_line/b' }, { job: 'kws' }] },
      ],
    });
    assert.deepEqual(annotations, [
      { line: 43, job: 'kws', entityIds: ['code_line/a'] },
      { line: 43, job: 'est', entityIds: ['code_line/z'] },
      { line: 11, job: 'kws', entityIds: ['code_line/b'] },
    ]);
  });

  it('drops lines deleted by unsaved edits and falls back to the analysed line', () => {
    const annotations = parseLineAnnotations({
      lines: [
        { line: 5, currentLine: null, entities: [{ job: 'j', entityId: 'x' }] },
        { line: 7, entities: [{ job: 'j', entityId: 'y' }] },
        { line: 0, entities: [{ job: 'j', entityId: 'bad' }] },
      ],
    });
    assert.deepEqual(annotations, [{ line: 6, job: 'j', entityIds: ['y'] }]);
  });

  it('returns nothing for other shapes', () => {
    assert.deepEqual(parseLineAnnotations({ something: 1 }), []);
    assert.deepEqual(parseLineAnnotations([{ line: 1 }]), []);
    assert.deepEqual(parseLineAnnotations(null), []);
  });
});

describe('annotationsAt', () => {
  const annotations = parseLineAnnotations({
    lines: [
      { line: 4, entities: [{ job: 'a', entityId: '1' }, { job: 'b', entityId: '2' }] },
      { line: 5, entities: [{ job: 'b', entityId: '3' }] },
    ],
  });

  it("prefers the active job's annotations of the line", () => {
    assert.deepEqual(annotationsAt(annotations, 3, 'b').map((a) => a.entityIds), [['2']]);
  });

  it('falls back to any job on that line', () => {
    assert.equal(annotationsAt(annotations, 4, 'a').length, 1);
    assert.equal(annotationsAt(annotations, 9, 'a').length, 0);
  });
});

describe('resultDocument', () => {
  it('unwraps the document of a perfline/result answer', () => {
    const document = { schema_version: '1.2.0', results: [] };
    assert.equal(resultDocument({ job: 'kws', generation: 3, stale: false, document }), document);
    assert.deepEqual(resultDocument({ results: [] }), { results: [] });
  });
});

describe('command arguments', () => {
  it('accepts a job id as a string or {job}', () => {
    assert.equal(jobArgument('kws'), 'kws');
    assert.equal(jobArgument({ job: 'kws' }), 'kws');
    assert.equal(jobArgument({ job: 3 }), undefined);
    assert.equal(jobArgument(''), undefined);
    assert.equal(jobArgument(undefined), undefined);
  });

  it('reanalyzes everything without a job', () => {
    assert.deepEqual(reanalyzeParams(undefined), {});
    assert.deepEqual(reanalyzeParams('kws'), { job: 'kws' });
  });
});

describe('describeChange', () => {
  it('names the kind, job, generation, staleness and error', () => {
    assert.deepEqual(describeChange({ kind: 'result', job: 'kws', generation: 3, stale: false, error: null }), {
      job: 'kws',
      text: 'result kws generation 3',
    });
    assert.equal(
      describeChange({ kind: 'error', job: 'kws', generation: 4, stale: true, error: 'truncated' }).text,
      'error kws generation 4 stale error: truncated',
    );
    assert.deepEqual(describeChange(undefined), { job: undefined, text: 'everything' });
  });
});

describe('blockArguments', () => {
  it('reads the code lens arguments: URI, first and last line (1-based) -> 0-based range', () => {
    assert.deepEqual(blockArguments('file:///w/dscnn.py', 31, 44), { uri: 'file:///w/dscnn.py', start: 30, end: 43 });
    assert.deepEqual(blockArguments('file:///w/dscnn.py', 12, 12), { uri: 'file:///w/dscnn.py', start: 11, end: 11 });
  });

  it('refuses anything else (no guessing where the block ends)', () => {
    assert.equal(blockArguments('file:///w/dscnn.py', 31, undefined), undefined);
    assert.equal(blockArguments('file:///w/dscnn.py', 31, 30), undefined);
    assert.equal(blockArguments('file:///w/dscnn.py', 0, 3), undefined);
    assert.equal(blockArguments('file:///w/dscnn.py', 1.5, 3), undefined);
    assert.equal(blockArguments(undefined, 1, 3), undefined);
    assert.equal(blockArguments('', 1, 3), undefined);
  });
});

describe('parseSummary and parseBreakdown', () => {
  it('take the server-rendered texts as they are', () => {
    const summary = parseSummary({ job: 'kws', headline: ['12.0 ms', 3], metrics: ['inference_time: 12.0 ms'], run: 'x' });
    assert.deepEqual(summary, { job: 'kws', headline: ['12.0 ms'], metrics: ['inference_time: 12.0 ms'], run: 'x' });
    assert.equal(parseSummary({ headline: [] }), undefined);
    const breakdown = parseBreakdown({ job: 'kws', title: 'Breakdown of dscnn.py:26', markdown: '# x\n', lines: [26] });
    assert.deepEqual(breakdown, { job: 'kws', title: 'Breakdown of dscnn.py:26', markdown: '# x\n', lines: [26] });
    assert.equal(parseBreakdown({ job: 'kws' }), undefined);
  });
});

describe('fileSafe', () => {
  it('makes ids safe for virtual document paths', () => {
    assert.equal(fileSafe('kws/dscnn xnnpack'), 'kws_dscnn_xnnpack');
    assert.equal(fileSafe('///'), 'job');
  });
});

describe('parseBaselineAnswer / baselineMessage', () => {
  it('says where the baseline is kept once it is set', () => {
    const answer = parseBaselineAnswer({
      job: 'dscnn-measured',
      state: 'set',
      path: '.perfline/baselines/dscnn-measured/mlia-output.json',
      error: null,
    });
    assert.ok(answer !== undefined);
    const message = baselineMessage(answer);
    assert.equal(message.ok, true);
    assert.match(message.text, /job dscnn-measured is now its baseline \(kept in \.perfline\/baselines\/dscnn-measured\/mlia-output\.json\)/);
  });

  it('reports a failed write as an error', () => {
    const answer = parseBaselineAnswer({ job: 'j', state: 'error', path: null, error: 'disk full' });
    assert.ok(answer !== undefined);
    assert.deepEqual(baselineMessage(answer), { ok: false, text: 'perfline: the baseline of job j was not set: disk full' });
  });

  it('rejects answers without a job', () => {
    assert.equal(parseBaselineAnswer({ state: 'set' }), undefined);
    assert.equal(parseBaselineAnswer('x'), undefined);
  });
});
