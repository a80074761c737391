import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { gaveUpMessage, startFailureMessage } from '../../src/failure';
import { resolveServerCommand } from '../../src/serverCommand';

const python = resolveServerCommand({ path: '', python: '/venv/bin/python', extraArgs: [] }, undefined);
const exe = resolveServerCommand({ path: '/opt/bin/perfline', python: '', extraArgs: [] }, undefined);

describe('startFailureMessage', () => {
  it('explains a missing interpreter and names the setting it came from', () => {
    const message = startFailureMessage({ command: python, error: 'spawn /venv/bin/python ENOENT', stderrTail: [] });
    assert.match(message, /the Python interpreter "\/venv\/bin\/python" was not found \(from perfline\.server\.python\)/);
  });

  it('explains a missing executable', () => {
    const message = startFailureMessage({ command: exe, error: 'spawn /opt/bin/perfline ENOENT', stderrTail: [] });
    assert.match(message, /the perfline executable "\/opt\/bin\/perfline" was not found/);
  });

  it('says how to install perfline when the module is missing', () => {
    const message = startFailureMessage({
      command: python,
      error: 'Command failed: /venv/bin/python -c import perfline.server',
      stderrTail: ['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'perfline'"],
    });
    assert.match(message, /not installed in \/venv\/bin\/python/);
    assert.match(message, /\/venv\/bin\/python -m pip install perfline/);
  });

  it('quotes the server error otherwise', () => {
    const message = startFailureMessage({
      command: python,
      error: 'closed',
      stderrTail: ['log line', 'RuntimeError: port in use'],
    });
    assert.match(message, /did not start \(\/venv\/bin\/python -m perfline serve --stdio\): RuntimeError: port in use/);
  });
});

describe('gaveUpMessage', () => {
  it('gives the crash count, the window and the last error', () => {
    const message = gaveUpMessage(6, 180_000, ['ValueError: bad']);
    assert.match(message, /crashed 6 times in 3 min/);
    assert.match(message, /Last error: ValueError: bad$/);
  });
});
