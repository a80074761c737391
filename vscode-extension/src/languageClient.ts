/**
 * Builds the `vscode-languageclient` client for one server run: spawns the server process
 * (argv, no shell) with its stderr copied to the log tail, hands crashes to the supervisor instead
 * of the library's own restart logic, and answers `workspace/configuration` for `perfline.*` from
 * the validated settings. The server renders every hint and lens itself (it applies the hint
 * settings it pulls or is sent); the client passes them through untouched.
 */

import { type ChildProcess, spawn } from 'node:child_process';

import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
} from 'vscode-languageclient/node';

import type { LogTail } from './logTail';
import type { ServerCommand } from './serverCommand';
import { configurationFor, type PerflineSettings, serverSettings } from './settings';

export const CLIENT_ID = 'perfline';

/**
 * Commands the extension implements itself. The server also offers `perfline.reanalyze`,
 * `perfline.setBaseline`, `perfline.clearBaseline` and the code lens command `perfline.showBlock`
 * through `workspace/executeCommand`; registering them a second time would fail, so the client
 * skips those ids when the server announces them.
 */
export const CLIENT_COMMANDS: ReadonlySet<string> = new Set([
  'perfline.reanalyze',
  'perfline.showBlock',
  'perfline.setBaseline',
  'perfline.clearBaseline',
]);

export interface ClientHooks {
  readonly settings: () => PerflineSettings;
  /** The connection closed without a stop request. */
  readonly onClosed: () => void;
  readonly tail: LogTail;
  readonly output: vscode.OutputChannel;
}

export interface ServerRun {
  readonly client: LanguageClient;
  /** Kills the server process if it is still alive (after a stop that timed out). */
  kill(): void;
}

export function createServerRun(command: ServerCommand, cwd: string, hooks: ClientHooks): ServerRun {
  let child: ChildProcess | undefined;

  const serverOptions: ServerOptions = async () => {
    const proc = spawn(command.command, [...command.args], {
      cwd,
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
      stdio: 'pipe',
      windowsHide: true,
    });
    child = proc;
    proc.stderr.on('data', (data: Buffer | string) => hooks.tail.append(data.toString()));
    await new Promise<void>((resolve, reject) => {
      proc.once('spawn', () => resolve());
      proc.once('error', reject);
    });
    proc.on('error', (error) => hooks.output.appendLine(`[perfline] server process error: ${error.message}`));
    proc.on('exit', (code, signal) =>
      hooks.output.appendLine(`[perfline] server process exited (code ${String(code)}, signal ${String(signal)})`),
    );
    return proc;
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'file', pattern: '**/perfline.toml' },
    ],
    outputChannel: hooks.output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: { settings: { perfline: serverSettings(hooks.settings()) } },
    diagnosticCollectionName: CLIENT_ID,
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        hooks.onClosed();
        // The supervisor decides about restarts; this only words the library's log line.
        return { action: CloseAction.DoNotRestart, handled: true, message: 'Connection to the perfline server closed.' };
      },
    },
    initializationFailedHandler: () => false,
    middleware: {
      workspace: {
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          const settings = hooks.settings();
          return params.items.map((item, i) => {
            const ours = configurationFor(item.section, settings);
            return ours === undefined ? (answers[i] as unknown) : ours;
          });
        },
      },
    },
  };

  const client = new LanguageClient(CLIENT_ID, 'perfline', serverOptions, clientOptions);
  skipServerCommands(client, CLIENT_COMMANDS);
  return {
    client,
    kill: () => {
      if (child?.exitCode === null && child.signalCode === null) {
        child.kill();
      }
    },
  };
}

/** Filters the server's `executeCommandProvider.commands` before the library registers them. */
function skipServerCommands(client: LanguageClient, skipped: ReadonlySet<string>): void {
  const feature = client.getFeature(ExecuteCommandRequest.method);
  const register = feature.register.bind(feature);
  feature.register = (data) => {
    const commands = data.registerOptions.commands.filter((command) => !skipped.has(command));
    register({ ...data, registerOptions: { ...data.registerOptions, commands } });
  };
}
