import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import {
  breakdownRows,
  codeLineIds,
  metricLabel,
  modelTotals,
  parseDocument,
  parseMetric,
} from '../../src/documentModel';

// Compiled to out/test/unit; the fixture stays in test/unit/fixtures.
const fixture = join(__dirname, '..', '..', '..', 'test', 'unit', 'fixtures', 'code-lines.expected.json');
const probe: unknown = JSON.parse(readFileSync(fixture, 'utf8'));

const measured = {
  model: { name: 'dscnn.pte' },
  results: [
    { kind: 'compatibility', status: 'ok', producer: 'x', metrics: [{ name: 'inference_time', unit: 'ms', value: 99 }] },
    {
      kind: 'performance',
      status: 'ok',
      producer: 'executorch-etdump',
      mode: 'measured',
      metrics: [
        { name: 'cpu_utilization', unit: '%', availability: 'unavailable', reason: 'not measured' },
        { name: 'model_weight_memory', unit: 'bytes', value: 24_000 },
        { name: 'total_cycles', unit: 'cycles', value: 1834 },
        { name: 'inference_time', unit: 'ms', value: 2.04 },
        { name: 'inference_time_min', unit: 'ms', value: 1.9 },
      ],
      entities: [
        { id: 'code_line/a', kind: 'code_line', name: 'dscnn.py:40', attributes: { file: '/k/dscnn.py', line: 40 } },
        { id: 'code_line/b', kind: 'code_line', name: 'dscnn.py:12', attributes: { file: '/k/dscnn.py', line: 12 } },
        { id: 'code_line/c', kind: 'code_line', name: 'dscnn.py:50', attributes: { file: '/k/dscnn.py', line: 50 } },
        { id: 'op/1', kind: 'source_operator', name: 'conv', placement: 'CPU' },
      ],
      breakdowns: [
        { entity_id: 'code_line/a', metrics: [{ name: 'time', unit: 'ms', value: 0.5, aggregation: 'sum', qualifiers: { placement: 'CPU' } }] },
        { entity_id: 'code_line/a', metrics: [{ name: 'time', unit: 'ms', value: 0.25, aggregation: 'sum', qualifiers: { placement: 'CPU' } }] },
        { entity_id: 'code_line/b', metrics: [{ name: 'time', unit: 'ms', value: 1.2, aggregation: 'max', qualifiers: { placement: 'CPU' } }] },
        { entity_id: 'bogus' },
        'garbage',
      ],
    },
  ],
};

describe('parseDocument', () => {
  it('reads a processed conformance document', () => {
    const doc = parseDocument(probe);
    assert.ok(doc);
    assert.equal(doc.results.length, 1);
    assert.equal(doc.results[0]?.producer, 'nx-performance-estimator');
    assert.ok(doc.results[0].entities.some((e) => e.kind === 'code_line'));
  });

  it('unwraps {document} envelopes and rejects non-documents', () => {
    assert.equal(parseDocument({ job: 'j', document: measured })?.modelName, 'dscnn.pte');
    assert.equal(parseDocument({ results: 'no' }), undefined);
    assert.equal(parseDocument(null), undefined);
  });

  it('skips malformed breakdowns', () => {
    const breakdowns = parseDocument(measured)?.results[1]?.breakdowns ?? [];
    assert.deepEqual(
      breakdowns.map((b) => [b.entityId, b.metrics.length]),
      [
        ['code_line/a', 1],
        ['code_line/a', 1],
        ['code_line/b', 1],
        ['bogus', 0],
      ],
    );
  });
});

describe('parseMetric and metricLabel', () => {
  it('keeps unavailable metrics without a value', () => {
    const metric = parseMetric({ name: 'cpu_utilization', unit: '%', availability: 'unavailable', reason: 'n/a' });
    assert.equal(metric?.value, undefined);
    assert.equal(metric?.reason, 'n/a');
  });

  it('labels metrics with their distinguishing qualifiers', () => {
    const metric = parseMetric({ name: 'op_cycles', unit: 'cycles', value: 3, qualifiers: { placement: 'NX', phase: 'after', extra: { x: 1 } } });
    assert.ok(metric);
    assert.equal(metricLabel(metric), 'op_cycles (NX, phase=after) [cycles]');
  });

  it('drops non-finite values', () => {
    assert.equal(parseMetric({ name: 'x', unit: 'ms', value: Number.NaN })?.value, undefined);
  });
});

describe('modelTotals', () => {
  const doc = parseDocument(measured);
  assert.ok(doc);

  it('headlines time then cycles from the performance result', () => {
    assert.deepEqual(
      modelTotals(doc, 'auto').map((m) => [m.name, m.value]),
      [
        ['inference_time', 2.04],
        ['total_cycles', 1834],
      ],
    );
  });

  it('shows one figure per unit', () => {
    assert.deepEqual(
      modelTotals(doc, 'auto', 5).map((m) => m.name),
      ['inference_time', 'total_cycles', 'model_weight_memory'],
    );
  });

  it('puts the preferred metric first', () => {
    assert.equal(modelTotals(doc, 'model_weight_memory', 1)[0]?.name, 'model_weight_memory');
  });

  it('reads the conformance document total', () => {
    const probeDoc = parseDocument(probe);
    assert.ok(probeDoc);
    assert.deepEqual(modelTotals(probeDoc, 'auto').map((m) => [m.name, m.value]), [['total_cycles', 1000]]);
  });
});

describe('breakdownRows and codeLineIds', () => {
  const doc = parseDocument(measured);
  assert.ok(doc);

  it('sums "sum" breakdowns of one entity and keeps the order asked for', () => {
    const rows = breakdownRows(doc, ['code_line/b', 'code_line/a', 'missing']);
    assert.deepEqual(rows.map((r) => r.entity.id), ['code_line/b', 'code_line/a']);
    assert.equal(rows[1]?.values.get('time (CPU) [ms]')?.value, 0.75);
    assert.equal(rows[0]?.values.get('time (CPU) [ms]')?.value, 1.2);
  });

  it('lists code lines that carry figures, by line', () => {
    assert.deepEqual(codeLineIds(doc), ['code_line/b', 'code_line/a']);
    const probeDoc = parseDocument(probe);
    assert.ok(probeDoc);
    assert.deepEqual(codeLineIds(probeDoc), ['code_line/helper.py:7-f529c3735ef4']);
  });
});
