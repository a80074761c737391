import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  belowThreshold,
  figuresByLine,
  hintLabel,
  isDefaultPresentation,
  type LineFigure,
} from '../../src/hintFormat';
import { DEFAULT_SETTINGS } from '../../src/settings';

const answer = {
  file: '/w/dscnn.py',
  lines: [
    {
      line: 26,
      currentLine: 26,
      label: '9.63 ms avg · 81%',
      entities: [
        {
          job: 'kws',
          entityId: 'code_line/26',
          value: 9.634,
          metric: { name: 'duration', unit: 'ms' },
          statistic: 'avg',
          share: 0.807,
          metrics: [
            { name: 'duration_avg', unit: 'ms', value: 9.634 },
            { name: 'npu_cycles', unit: 'cycles', value: 18_340 },
          ],
        },
      ],
    },
    {
      line: 25,
      currentLine: 27,
      entities: [{ job: 'kws', entityId: 'code_line/25', value: 0.09, metric: { name: 'duration', unit: 'ms' }, share: 0.0075 }],
    },
    { line: 41, currentLine: 41, entities: [{ job: 'kws', entityId: 'code_line/41', value: null, metric: null, share: null }] },
  ],
};

const figures = figuresByLine(answer);
const at = (line: number): LineFigure[] => figures.get(line) ?? [];
const hints = (over: Partial<typeof DEFAULT_SETTINGS.hints>) => ({ ...DEFAULT_SETTINGS.hints, ...over });

describe('figuresByLine', () => {
  it('keys figures by the 0-based current line', () => {
    assert.deepEqual([...figures.keys()], [25, 26, 40]);
    assert.equal(at(25)[0]?.share, 0.807);
    assert.equal(at(26)[0]?.value, 0.09);
    assert.equal(at(40)[0]?.value, undefined);
  });
});

describe('hintLabel', () => {
  it('formats the dominant figure with the template', () => {
    assert.equal(hintLabel(at(25), hints({ format: '{value} ({share})' })), '9.63 ms (81%)');
    assert.equal(hintLabel(at(25), hints({ format: '{metric}: {value}' })), 'duration avg: 9.63 ms');
  });

  it('shows another metric of the line, without an unknown share', () => {
    assert.equal(hintLabel(at(25), hints({ metric: 'npu_cycles' })), '18k cycles');
    assert.equal(hintLabel(at(25), hints({ metric: 'npu_cycles', format: '{value} ({share})' })), '18k cycles');
  });

  it('hides lines below the share threshold and lines without the metric', () => {
    assert.equal(hintLabel(at(26), hints({ minShare: 1 })), undefined);
    assert.equal(hintLabel(at(26), hints({ minShare: 0.5 })), '0.09 ms · <1%');
    assert.equal(hintLabel(at(26), hints({ metric: 'npu_cycles' })), undefined);
    assert.equal(hintLabel(at(40), hints({})), undefined);
  });
});

describe('belowThreshold and isDefaultPresentation', () => {
  it('keeps lines whose share is unknown', () => {
    assert.equal(belowThreshold(at(40), 50), false);
    assert.equal(belowThreshold(at(25), 80), false);
    assert.equal(belowThreshold(at(25), 81), true);
  });

  it('recognises the defaults', () => {
    assert.equal(isDefaultPresentation(DEFAULT_SETTINGS.hints), true);
    assert.equal(isDefaultPresentation(hints({ minShare: 2 })), false);
  });
});
