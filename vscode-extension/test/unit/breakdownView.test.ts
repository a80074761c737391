import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { entityLabel, renderBreakdown, rowsTable } from '../../src/breakdownView';
import { breakdownRows, parseDocument } from '../../src/documentModel';

const raw = {
  results: [
    {
      kind: 'performance',
      status: 'partial',
      producer: 'nx-performance-estimator',
      metrics: [
        { name: 'total_cycles', unit: 'cycles', value: 20_000 },
        { name: 'inference_time', unit: 'ms', availability: 'unavailable', reason: 'no clock' },
      ],
      entities: [
        { id: 'l1', kind: 'code_line', name: 'dscnn.py:42', attributes: { file: '/home/dev/kws/dscnn.py', line: 42 } },
        { id: 'l2', kind: 'code_line', name: 'x', placement: 'NX', attributes: { file: 'C:\\m\\dscnn.py', line: 7 } },
      ],
      breakdowns: [
        { entity_id: 'l1', metrics: [{ name: 'op_cycles', unit: 'cycles', value: 1800, aggregation: 'sum' }] },
        { entity_id: 'l2', metrics: [{ name: 'mem', unit: 'bytes', value: 2048 }] },
      ],
    },
  ],
};

describe('breakdown view', () => {
  const doc = parseDocument(raw);
  assert.ok(doc);
  const rows = breakdownRows(doc, ['l1', 'l2']);

  it('labels entities by file name and line', () => {
    assert.deepEqual(rows.map((row) => entityLabel(row.entity)), ['dscnn.py:42', 'dscnn.py:7 x']);
  });

  it('has one column per metric and blank cells where an entity lacks one', () => {
    assert.equal(
      rowsTable(rows),
      [
        '| entity | kind | placement | op_cycles [cycles] | mem [bytes] |',
        '| --- | --- | --- | --- | --- |',
        '| dscnn.py:42 | code_line |  | 1.8k cycles |  |',
        '| dscnn.py:7 x | code_line | NX |  | 2 KiB |',
      ].join('\n'),
    );
  });

  it('renders the model metrics, the result header and the table', () => {
    const text = renderBreakdown({ title: 'Model breakdown', jobLabel: 'kws', document: doc, rows });
    assert.match(text, /^# Model breakdown\n\nJob: kws\n/);
    assert.match(text, /Result: performance \(partial\) from nx-performance-estimator\n/);
    assert.match(text, /\| total_cycles \[cycles\] \| 20k cycles \|/);
    assert.match(text, /\| inference_time \[ms\] \| n\/a \(no clock\) \|/);
    assert.match(text, /## Breakdown\n\n\| entity \|/);
  });

  it('says so when there is nothing to show', () => {
    const text = renderBreakdown({ title: 't', jobLabel: 'j', document: doc, rows: [] });
    assert.match(text, /No breakdowns for this selection\./);
  });
});
