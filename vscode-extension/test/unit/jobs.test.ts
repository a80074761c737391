import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { chooseActiveJob, jobPickItems, parseJobs } from '../../src/jobs';

describe('parseJobs', () => {
  it('reads {jobs: [...]} with inputs, backend, state and errors', () => {
    const jobs = parseJobs({
      jobs: [
        { id: 'kws', backend: 'executorch', state: 'ok', inputs: ['dscnn.etrecord', { path: 'dscnn.etdump' }] },
        { id: 'est', status: 'stale', error: { message: 'truncated file' } },
        { name: 'no-id-but-name' },
        { nothing: true },
        { id: 'kws', backend: 'duplicate' },
      ],
    });
    assert.deepEqual(
      jobs.map((j) => [j.id, j.backend, j.state, j.error, j.inputs]),
      [
        ['kws', 'executorch', 'ok', undefined, ['dscnn.etrecord', 'dscnn.etdump']],
        ['est', undefined, 'stale', 'truncated file', []],
        ['no-id-but-name', undefined, undefined, undefined, []],
      ],
    );
  });

  it('reads plain arrays and id-keyed objects', () => {
    assert.deepEqual(parseJobs(['a', 'b']).map((j) => j.id), ['a', 'b']);
    assert.deepEqual(parseJobs({ jobs: { x: { state: 'ok' }, y: {} } }).map((j) => [j.id, j.state]), [
      ['x', 'ok'],
      ['y', undefined],
    ]);
    assert.deepEqual(parseJobs('nonsense'), []);
  });
});

describe('parseJobs on a perfline/jobs answer', () => {
  it('reads name, state, stale, hasResult and the error message', () => {
    const [job] = parseJobs({
      jobs: [
        {
          name: 'dscnn-measured',
          backend: 'executorch',
          inputs: ['dscnn_portable.etrecord', 'dscnn_portable.etdump'],
          state: 'ok',
          stale: true,
          error: { message: 'truncated ETDump', file: 'dscnn_portable.etdump', line: null },
          generation: 2,
          runs: 2,
          hasResult: true,
        },
      ],
    });
    assert.ok(job);
    assert.deepEqual(
      [job.id, job.label, job.state, job.stale, job.hasResult, job.error],
      ['dscnn-measured', 'dscnn-measured', 'ok', true, true, 'truncated ETDump'],
    );
  });
});

describe('chooseActiveJob', () => {
  it('prefers a job that has a result', () => {
    const jobs = parseJobs({ jobs: [{ name: 'pending', hasResult: false }, { name: 'done', hasResult: true }] });
    assert.equal(chooseActiveJob(jobs, undefined), 'done');
    assert.equal(chooseActiveJob(parseJobs({ jobs: [{ name: 'p', hasResult: false }] }), undefined), 'p');
  });

  const jobs = parseJobs({ jobs: [{ id: 'broken', error: 'x' }, { id: 'good' }, { id: 'other' }] });

  it('keeps the previous choice while it exists', () => {
    assert.equal(chooseActiveJob(jobs, 'other'), 'other');
  });

  it('otherwise takes the first job without an error', () => {
    assert.equal(chooseActiveJob(jobs, 'gone'), 'good');
    assert.equal(chooseActiveJob(parseJobs([{ id: 'only', error: 'x' }]), undefined), 'only');
    assert.equal(chooseActiveJob([], 'x'), undefined);
  });
});

describe('jobPickItems', () => {
  it('marks the active job and shows errors as detail', () => {
    const jobs = parseJobs({
      jobs: [{ id: 'a', backend: 'nx', state: 'ok', stale: true, inputs: ['m.vgf'] }, { id: 'b', error: 'bad' }],
    });
    const items = jobPickItems(jobs, 'a');
    assert.deepEqual(items[0], { label: '$(check) a', description: 'nx · ok · stale', detail: 'm.vgf', jobId: 'a', picked: true });
    assert.equal(items[1]?.detail, 'error: bad');
    assert.equal(items[1].picked, false);
  });
});
