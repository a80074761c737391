import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { describeCommand, probeArgs, resolveServerCommand } from '../../src/serverCommand';

const launch = (path = '', python = '', extraArgs: string[] = []) => ({ path, python, extraArgs });

describe('resolveServerCommand', () => {
  it('prefers perfline.server.path', () => {
    const command = resolveServerCommand(launch('/opt/perfline/bin/perfline', 'python3.12'), '/venv/bin/python');
    assert.equal(command.command, '/opt/perfline/bin/perfline');
    assert.deepEqual(command.args, ['serve', '--stdio']);
    assert.equal(command.origin, 'perfline.server.path');
    assert.equal(command.python, undefined);
    assert.equal(probeArgs(command), undefined);
  });

  it('uses perfline.server.python over the Python extension', () => {
    const command = resolveServerCommand(launch('', '/usr/bin/python3.11'), '/venv/bin/python');
    assert.equal(command.command, '/usr/bin/python3.11');
    assert.deepEqual(command.args, ['-m', 'perfline', 'serve', '--stdio']);
    assert.equal(command.origin, 'perfline.server.python');
  });

  it("defaults to the Python extension's interpreter, then python3", () => {
    assert.equal(resolveServerCommand(launch(), '/venv/bin/python').command, '/venv/bin/python');
    assert.equal(resolveServerCommand(launch(), '/venv/bin/python').origin, 'python extension');
    assert.equal(resolveServerCommand(launch(), undefined).command, 'python3');
    assert.equal(resolveServerCommand(launch(), '  ').origin, 'default');
  });

  it('appends extra arguments after serve --stdio', () => {
    const command = resolveServerCommand(launch('', '', ['--log-file', '/tmp/p.log']), undefined);
    assert.deepEqual(command.args, ['-m', 'perfline', 'serve', '--stdio', '--log-file', '/tmp/p.log']);
  });

  it('probes the interpreter by importing the server package', () => {
    assert.deepEqual(probeArgs(resolveServerCommand(launch(), undefined)), ['-c', 'import perfline.server']);
  });

  it('quotes arguments with spaces when describing the command', () => {
    const command = resolveServerCommand(launch('', '/My Python/python'), undefined);
    assert.equal(describeCommand(command), '"/My Python/python" -m perfline serve --stdio');
  });
});
