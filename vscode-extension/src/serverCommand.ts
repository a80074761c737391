/**
 * Decides which program starts the perfline server and with which arguments. Pure: the
 * interpreter chosen by the Python extension is passed in by the caller.
 *
 * Order: `perfline.server.path` (an executable, run as `<path> serve --stdio`), else
 * `perfline.server.python`, else the Python extension's interpreter, else `python3`
 * (each run as `<python> -m perfline serve --stdio`). Arguments are passed as an argv array,
 * never through a shell.
 */

import type { ServerLaunchSettings } from './settings';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** How the command was chosen, for the log and error messages. */
  readonly origin: 'perfline.server.path' | 'perfline.server.python' | 'python extension' | 'default';
  /** The interpreter, when the server runs as `python -m perfline`. */
  readonly python: string | undefined;
}

export const DEFAULT_PYTHON = 'python3';
export const SERVE_ARGS: readonly string[] = ['serve', '--stdio'];

export function resolveServerCommand(
  launch: ServerLaunchSettings,
  pythonExtensionInterpreter: string | undefined,
): ServerCommand {
  if (launch.path !== '') {
    return {
      command: launch.path,
      args: [...SERVE_ARGS, ...launch.extraArgs],
      origin: 'perfline.server.path',
      python: undefined,
    };
  }
  const fromExtension = pythonExtensionInterpreter?.trim() ?? '';
  let python = DEFAULT_PYTHON;
  let origin: ServerCommand['origin'] = 'default';
  if (launch.python !== '') {
    python = launch.python;
    origin = 'perfline.server.python';
  } else if (fromExtension !== '') {
    python = fromExtension;
    origin = 'python extension';
  }
  return {
    command: python,
    args: ['-m', 'perfline', ...SERVE_ARGS, ...launch.extraArgs],
    origin,
    python,
  };
}

/** The command as one line, quoting arguments with spaces, for logs and messages. */
export function describeCommand(command: ServerCommand): string {
  return [command.command, ...command.args].map(quoteIfNeeded).join(' ');
}

/** Arguments of the quick check that perfline is importable by the chosen interpreter. */
export function probeArgs(command: ServerCommand): readonly string[] | undefined {
  if (command.python === undefined) {
    return undefined;
  }
  return ['-c', 'import perfline.server'];
}

function quoteIfNeeded(part: string): string {
  return /[\s"']/.test(part) ? JSON.stringify(part) : part;
}
