/**
 * `perfline: Show Report`: the HTML report the server renders (`perfline/reportHtml`) in a
 * webview beside the editor, one panel per job (and baseline). The page arrives with its
 * Content Security Policy (`default-src 'none'`, style and script allowed by this rendering's
 * nonce only) and loads nothing; the webview gets no local resource roots. A click on a line
 * number posts `{type: "openLine", file, line}`: the line opens in the editor, if the file is
 * one the page was rendered with. When the job's result changes the panel is rendered again.
 */

import * as vscode from 'vscode';

import type { Controller } from './controller';
import { messageOf } from './controller';
import { Methods } from './protocol';
import {
  makeNonce,
  openLineTarget,
  pageLocations,
  panelTitle,
  parseReport,
  type ReportPage,
  reportParams,
  type ReportRequest,
} from './report';

const RERENDER_DELAY_MS = 300;

/** Asks the server for the page of `request` (a fresh nonce each time). */
async function fetchPage(controller: Controller, request: ReportRequest): Promise<ReportPage> {
  const params = reportParams(request, makeNonce(), controller.currentSettings.hints.metric);
  const page = parseReport(await controller.request(Methods.reportHtml, params));
  if (page === undefined) {
    throw new Error('the server sent no report page');
  }
  return page;
}

class ReportPanel implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private allowed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly controller: Controller,
    private request: ReportRequest,
    page: ReportPage,
    onClosed: () => void,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      'perfline.report',
      'perfline report',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, enableFindWidget: true, retainContextWhenHidden: true, localResourceRoots: [] },
    );
    this.subscriptions.push(
      this.panel.onDidDispose(() => {
        this.dispose();
        onClosed();
      }),
      this.panel.webview.onDidReceiveMessage((message: unknown) => void this.onMessage(message)),
    );
    this.show(page);
  }

  get job(): string | undefined {
    return this.request.job;
  }

  /** Asks the server for the page again and shows it. */
  async render(): Promise<void> {
    this.show(await fetchPage(this.controller, this.request));
  }

  private show(page: ReportPage): void {
    this.request = { ...this.request, job: page.job };
    this.allowed = pageLocations(page.html);
    this.panel.title = panelTitle(page);
    this.panel.webview.html = page.html;
    for (const warning of page.warnings) {
      this.controller.output.appendLine(`[perfline] report of ${page.job}: ${warning}`);
    }
  }

  /** A new result of the job: render again, once the burst of changes is over. */
  rerenderSoon(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.render().catch((error: unknown) =>
        this.controller.output.appendLine(`[perfline] report: ${messageOf(error)}`),
      );
    }, RERENDER_DELAY_MS);
  }

  private async onMessage(message: unknown): Promise<void> {
    const target = openLineTarget(message, this.allowed);
    if (target === undefined) {
      if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'openLine') {
        void vscode.window.showInformationMessage('perfline: the source of that line is not in the workspace.');
      }
      return;
    }
    const line = target.line - 1;
    const range = new vscode.Range(line, 0, line, 0);
    try {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(target.file));
      const editor = await vscode.window.showTextDocument(document, {
        viewColumn: vscode.ViewColumn.One,
        selection: range,
        preserveFocus: false,
        preview: false,
      });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    } catch (error) {
      void vscode.window.showErrorMessage(`perfline: cannot open ${target.file}: ${messageOf(error)}`);
    }
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.subscriptions.length = 0;
  }
}

/** The open report panels, by job and baseline. */
export class ReportPanels implements vscode.Disposable {
  private readonly panels = new Map<string, ReportPanel>();
  private subscription: vscode.Disposable | undefined;

  /** Shows (or re-renders) the report of `request.job` (the active job when none is given). */
  async show(controller: Controller, request: ReportRequest): Promise<void> {
    this.subscription ??= controller.onDidChangeResult((job) => this.changed(job));
    const job = request.job ?? controller.currentJob;
    const wanted: ReportRequest = job === undefined ? request : { ...request, job };
    const key = `${wanted.job ?? ''}\u0000${wanted.baseline ?? ''}`;
    const open = this.panels.get(key);
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'perfline: rendering the report' },
      async () => {
        if (open !== undefined) {
          open.panel.reveal(vscode.ViewColumn.Beside);
          await open.render();
          return;
        }
        // The page first: a request that fails leaves no empty panel behind.
        const page = await fetchPage(controller, wanted);
        this.panels.set(key, new ReportPanel(controller, wanted, page, () => this.panels.delete(key)));
      },
    );
  }

  private changed(job: string | undefined): void {
    for (const panel of this.panels.values()) {
      if (job === undefined || panel.job === job) {
        panel.rerenderSoon();
      }
    }
  }

  dispose(): void {
    this.subscription?.dispose();
    for (const panel of this.panels.values()) {
      panel.panel.dispose();
    }
    this.panels.clear();
  }
}
