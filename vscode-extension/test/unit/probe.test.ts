import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { startFailureMessage } from '../../src/failure';
import { LogTail } from '../../src/logTail';
import { probeServer } from '../../src/probe';
import { resolveServerCommand } from '../../src/serverCommand';

// Fake interpreters: real processes with fixed behaviour, so the probe's spawning, exit status
// and stderr capture are exercised without depending on what the machine's python3 has installed.
const dir = mkdtempSync(join(tmpdir(), 'perfline-probe-'));
const script = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
};
const missing = script(
  'python-without-perfline',
  `echo 'Traceback (most recent call last):' >&2
echo '  File "<string>", line 1, in <module>' >&2
echo "ModuleNotFoundError: No module named 'perfline'" >&2
exit 1`,
);
const good = script('python-with-perfline', '[ "$1" = "-c" ] && [ "$2" = "import perfline.server" ] && exit 0; exit 3');

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const command = (python: string) => resolveServerCommand({ path: '', python, extraArgs: [] }, undefined);

describe('probeServer', () => {
  it('passes when the interpreter imports perfline.server', async () => {
    const outcome = await probeServer(command(good), dir);
    assert.deepEqual(outcome, { ok: true, error: undefined, stderr: '' });
  });

  it('explains a missing perfline with the interpreter and the install command', async () => {
    const outcome = await probeServer(command(missing), dir);
    assert.equal(outcome.ok, false);
    const tail = new LogTail();
    tail.append(outcome.stderr);
    const message = startFailureMessage({ command: command(missing), error: outcome.error, stderrTail: tail.tail(20) });
    assert.match(message, /the server is not installed in .*python-without-perfline \(ModuleNotFoundError: No module named 'perfline'\)/);
    assert.match(message, /-m pip install perfline/);
  });

  it('explains an interpreter that does not exist', async () => {
    const absent = join(dir, 'no-such-python');
    const outcome = await probeServer(command(absent), dir);
    assert.equal(outcome.ok, false);
    const message = startFailureMessage({ command: command(absent), error: outcome.error, stderrTail: [] });
    assert.match(message, /the Python interpreter ".*no-such-python" was not found \(from perfline.server.python\)/);
  });

  it('does not probe a perfline executable (the spawn reports it)', async () => {
    const exe = resolveServerCommand({ path: join(dir, 'nothing'), python: '', extraArgs: [] }, undefined);
    assert.equal((await probeServer(exe, dir)).ok, true);
  });
});
