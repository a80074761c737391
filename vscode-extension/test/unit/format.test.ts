import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fileSafe, formatShare, formatValue, markdownTable, significant } from '../../src/format';

describe('formatValue', () => {
  it('compacts counts with SI prefixes', () => {
    assert.equal(formatValue(1834, 'cycles'), '1.8k cycles');
    assert.equal(formatValue(12_345_678, 'cycles'), '12M cycles');
    assert.equal(formatValue(999, 'cycles'), '999 cycles');
    assert.equal(formatValue(42, ''), '42');
  });

  it('keeps times in their unit with three significant digits', () => {
    assert.equal(formatValue(0.4213, 'ms'), '0.421 ms');
    assert.equal(formatValue(12.3456, 'ms'), '12.3 ms');
    assert.equal(formatValue(1500, 'ms'), '1500 ms');
  });

  it('uses binary prefixes for bytes and a bare sign for percentages', () => {
    assert.equal(formatValue(12_800, 'bytes'), '12.5 KiB');
    assert.equal(formatValue(3 * 1024 ** 2, 'bytes'), '3 MiB');
    assert.equal(formatValue(512, 'bytes'), '512 B');
    assert.equal(formatValue(87.654, '%'), '87.7%');
  });
});

describe('significant', () => {
  it('rounds without trailing zeros', () => {
    assert.equal(significant(0.000123456), '0.000123');
    assert.equal(significant(2.5), '2.5');
    assert.equal(significant(0), '0');
  });
});

describe('formatShare', () => {
  it('shows whole percents and <1% for tiny shares', () => {
    assert.equal(formatShare(0.126), '13%');
    assert.equal(formatShare(0.004), '<1%');
    assert.equal(formatShare(0), '0%');
    assert.equal(formatShare(21.4, false), '21%');
  });
});

describe('markdownTable', () => {
  it('escapes pipes and newlines and pads short rows', () => {
    const table = markdownTable(['a', 'b|c'], [['x\ny'], ['1', '2']]);
    assert.equal(table, ['| a | b\\|c |', '| --- | --- |', '| x y |  |', '| 1 | 2 |'].join('\n'));
  });
});

describe('fileSafe', () => {
  it('keeps ids usable as path segments', () => {
    assert.equal(fileSafe('kws/dscnn xnnpack'), 'kws_dscnn_xnnpack');
    assert.equal(fileSafe('///'), 'job');
  });
});
