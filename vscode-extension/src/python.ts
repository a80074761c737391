/**
 * Asks the Python extension (ms-python.python), when installed, which interpreter is selected for
 * a folder, and tells when the selection changes. Duck-typed against the extension's public API
 * (`environments.getActiveEnvironmentPath`, older `settings.getExecutionDetails`), bounded by a
 * timeout so a slow or absent Python extension never blocks the server start.
 */

import * as vscode from 'vscode';

const PYTHON_EXTENSION_ID = 'ms-python.python';
const ACTIVATION_TIMEOUT_MS = 10_000;

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path?: unknown } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?: (resource?: vscode.Uri) => { execCommand?: unknown } | undefined;
  };
}

async function pythonApi(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  if (extension.isActive) {
    return extension.exports;
  }
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ACTIVATION_TIMEOUT_MS));
  try {
    return await Promise.race([Promise.resolve(extension.activate()), timeout]);
  } catch {
    return undefined;
  }
}

/** The selected interpreter's path for `resource`, or `undefined` when unknown. */
export async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const api = await pythonApi();
  if (api === undefined) {
    return undefined;
  }
  try {
    const active = api.environments?.getActiveEnvironmentPath?.(resource);
    if (active !== undefined && typeof active.path === 'string' && active.path !== '') {
      return active.path;
    }
    const exec = api.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (Array.isArray(exec) && typeof exec[0] === 'string' && exec[0] !== '') {
      return exec[0];
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Subscribes to interpreter changes when the Python extension offers it. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  return event === undefined ? undefined : event(() => listener());
}
