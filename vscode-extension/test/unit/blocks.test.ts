import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { blockRange } from '../../src/blocks';

const source = [
  'import torch', //                         0
  '', //                                     1
  'class DSCNN(nn.Module):', //              2
  '    def __init__(self):', //              3
  '        super().__init__()', //           4
  '', //                                     5
  '        self.conv = nn.Conv2d(', //       6
  '            1, 64, 3)', //                7
  '', //                                     8
  '    def forward(self, x):  # run', //     9
  '        return self.conv(x)', //         10
  '', //                                    11
  '', //                                    12
  'def build(', //                          13
  '    n: int,', //                         14
  ') -> DSCNN:', //                         15
  '    return DSCNN()', //                  16
];

describe('blockRange', () => {
  it('spans a class up to the next top-level line, without trailing blanks', () => {
    assert.deepEqual(blockRange(source, 2), { start: 2, end: 10 });
  });

  it('spans a method inside its class', () => {
    assert.deepEqual(blockRange(source, 3), { start: 3, end: 7 });
    assert.deepEqual(blockRange(source, 9), { start: 9, end: 10 });
  });

  it('follows a header written over several lines', () => {
    assert.deepEqual(blockRange(source, 13), { start: 13, end: 16 });
  });

  it('gives one line for a header outside the text', () => {
    assert.deepEqual(blockRange(source, 40), { start: 40, end: 40 });
  });
});
