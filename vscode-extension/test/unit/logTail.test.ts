import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { keyLine, LogTail } from '../../src/logTail';

describe('LogTail', () => {
  it('joins chunks split mid-line and keeps the unterminated last line', () => {
    const tail = new LogTail();
    tail.append('Traceback (most recent call last):\n  File "x"');
    tail.append(', line 1\nModuleNotFoundError: No module');
    tail.append(" named 'perfline'");
    assert.deepEqual(tail.tail(2), ['  File "x", line 1', "ModuleNotFoundError: No module named 'perfline'"]);
  });

  it('bounds what it keeps', () => {
    const tail = new LogTail(3);
    for (let i = 0; i < 10; i += 1) {
      tail.append(`line ${i}\n`);
    }
    assert.deepEqual(tail.tail(10), ['line 7', 'line 8', 'line 9']);
  });

  it('skips blank lines and clears', () => {
    const tail = new LogTail();
    tail.append('a\r\n\r\n  \nb\n');
    assert.deepEqual(tail.tail(5), ['a', 'b']);
    tail.clear();
    assert.deepEqual(tail.tail(5), []);
  });
});

describe('keyLine', () => {
  it('picks the last exception line', () => {
    assert.equal(
      keyLine(['Traceback', "ImportError: cannot import name 'x'", '  more context']),
      "ImportError: cannot import name 'x'",
    );
  });

  it('falls back to the last line, or nothing', () => {
    assert.equal(keyLine(['starting', 'killed']), 'killed');
    assert.equal(keyLine([]), undefined);
  });
});
