import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { annotationsAt, jobArgument, parseLineAnnotations, reanalyzeParams } from '../../src/protocol';

describe('parseLineAnnotations', () => {
  it('reads 0-based lines and entity ids from {lines}', () => {
    const annotations = parseLineAnnotations({
      uri: 'file:///w/dscnn.py',
      job: 'kws',
      lines: [
        { line: 41, entity_ids: ['code_line/a', 'code_line/a'] },
        { line: 12, entities: [{ id: 'code_line/b' }, 'code_line/c'], job: 'other' },
        { entity_ids: ['no line'] },
      ],
    });
    assert.deepEqual(annotations, [
      { line: 41, job: 'kws', entityIds: ['code_line/a'] },
      { line: 12, job: 'other', entityIds: ['code_line/b', 'code_line/c'] },
    ]);
  });

  it('converts 1-based line_number', () => {
    assert.deepEqual(parseLineAnnotations([{ line_number: 1, entity_ids: ['x'] }]), [
      { line: 0, job: undefined, entityIds: ['x'] },
    ]);
  });

  it('returns nothing for other shapes', () => {
    assert.deepEqual(parseLineAnnotations({ something: 1 }), []);
    assert.deepEqual(parseLineAnnotations(null), []);
  });
});

describe('annotationsAt', () => {
  const annotations = parseLineAnnotations([
    { line: 3, job: 'a', entity_ids: ['1'] },
    { line: 3, job: 'b', entity_ids: ['2'] },
    { line: 4, job: 'b', entity_ids: ['3'] },
  ]);

  it("prefers the active job's annotations of the line", () => {
    assert.deepEqual(annotationsAt(annotations, 3, 'b').map((a) => a.entityIds), [['2']]);
  });

  it('falls back to any job on that line', () => {
    assert.equal(annotationsAt(annotations, 4, 'a').length, 1);
    assert.equal(annotationsAt(annotations, 9, 'a').length, 0);
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
