/**
 * Wording of the messages shown when the server cannot start or keeps crashing. Pure: takes the
 * command, the error and the tail of the server's stderr.
 */

import { keyLine } from './logTail';
import { describeCommand, type ServerCommand } from './serverCommand';

export interface FailureInput {
  readonly command: ServerCommand;
  /** Error raised by the spawn or the probe (e.g. `spawn python3 ENOENT`). */
  readonly error: string | undefined;
  /** Last lines of the server's (or probe's) stderr. */
  readonly stderrTail: readonly string[];
}

/** A one-paragraph explanation with the likely cause and what to change. */
export function startFailureMessage(input: FailureInput): string {
  const { command } = input;
  const commandLine = describeCommand(command);
  const key = keyLine(input.stderrTail);
  const error = input.error ?? '';

  if (error.includes('ENOENT')) {
    const what = command.python !== undefined ? 'Python interpreter' : 'perfline executable';
    return (
      `perfline: cannot start the server: the ${what} "${command.command}" was not found ` +
      `(from ${command.origin}). Set perfline.server.python or perfline.server.path.`
    );
  }
  if (error.includes('EACCES')) {
    return `perfline: cannot start the server: "${command.command}" is not executable.`;
  }
  if (key !== undefined && /No module named ['"]?perfline/.test(key)) {
    return (
      `perfline: the server is not installed in ${command.command} (${key}). ` +
      `Install it there with "${command.command} -m pip install perfline" (or "pip install -e ." ` +
      `in a checkout), or point perfline.server.python at an interpreter that has it.`
    );
  }
  const detail = key ?? (error !== '' ? error : 'it exited without a message');
  return `perfline: the server did not start (${commandLine}): ${detail}. See the log for details.`;
}

/** Message after the restart budget is spent. */
export function gaveUpMessage(crashes: number, windowMs: number, lastLines: readonly string[]): string {
  const minutes = Math.round(windowMs / 60_000);
  const key = keyLine(lastLines);
  const suffix = key === undefined ? '' : ` Last error: ${key}`;
  return (
    `perfline: the server crashed ${crashes} times in ${minutes} min and will not be restarted ` +
    `automatically; run "perfline: Restart Server" after fixing the cause.${suffix}`
  );
}
