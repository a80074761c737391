/**
 * Entry point. On activation (a Python file opened) it looks for a perfline workspace (a
 * `perfline.toml` or perfline inputs); when found it creates the controller and starts the server,
 * otherwise it watches for such files to appear. Commands are registered either way.
 */

import * as vscode from 'vscode';

import { registerCommands } from './commands';
import { Controller } from './controller';
import { EXCLUDE_GLOB, MARKER_GLOB } from './markers';
import { ReportPanels } from './reportPanel';
import { SCHEME, VirtualDocuments } from './virtualDocs';

let controller: Controller | undefined;

async function perflineFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    return undefined;
  }
  const [marker] = await vscode.workspace.findFiles(MARKER_GLOB, EXCLUDE_GLOB, 1);
  return marker === undefined ? undefined : vscode.workspace.getWorkspaceFolder(marker);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const docs = new VirtualDocuments();
  const reports = new ReportPanels();
  context.subscriptions.push(
    docs,
    reports,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    ...registerCommands(() => controller, docs, reports),
  );

  const startIn = async (folder: vscode.WorkspaceFolder): Promise<void> => {
    if (controller !== undefined) {
      return;
    }
    controller = new Controller(context, folder);
    context.subscriptions.push(controller);
    await controller.start();
  };

  const folder = await perflineFolder();
  if (folder !== undefined) {
    await startIn(folder);
    return;
  }
  const watcher = vscode.workspace.createFileSystemWatcher(MARKER_GLOB, false, true, true);
  context.subscriptions.push(
    watcher,
    watcher.onDidCreate((uri) => {
      const created = vscode.workspace.getWorkspaceFolder(uri);
      if (created !== undefined) {
        watcher.dispose();
        void startIn(created);
      }
    }),
  );
}

export async function deactivate(): Promise<void> {
  const current = controller;
  controller = undefined;
  if (current !== undefined) {
    await current.shutdown();
  }
}
