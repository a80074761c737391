/**
 * Read-only virtual documents under the `perfline:` scheme (result JSON, breakdown tables). The
 * content is set before the document is opened and can be updated in place.
 */

import * as vscode from 'vscode';

export const SCHEME = 'perfline';

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Stores `content` under `path` (e.g. `/kws/result.json`) and returns the document's URI. */
  set(path: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path });
    this.contents.set(uri.toString(), content);
    this.changed.fire(uri);
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
