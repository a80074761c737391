/**
 * Checks, before starting the server, that the chosen interpreter can import perfline, so that a
 * missing install gives a clear message instead of a dead language client. Runs the interpreter
 * with fixed arguments (no shell) and a timeout.
 */

import { execFile } from 'node:child_process';

import { probeArgs, type ServerCommand } from './serverCommand';

export interface ProbeOutcome {
  readonly ok: boolean;
  readonly error: string | undefined;
  readonly stderr: string;
}

const PROBE_TIMEOUT_MS = 30_000;

export function probeServer(command: ServerCommand, cwd: string | undefined): Promise<ProbeOutcome> {
  const args = probeArgs(command);
  if (args === undefined) {
    return Promise.resolve({ ok: true, error: undefined, stderr: '' });
  }
  return new Promise((resolve) => {
    execFile(
      command.command,
      [...args],
      { cwd, timeout: PROBE_TIMEOUT_MS, windowsHide: true },
      (error, _stdout, stderr) => {
        const text = typeof stderr === 'string' ? stderr : String(stderr);
        resolve({ ok: error === null, error: error === null ? undefined : error.message, stderr: text });
      },
    );
  });
}
