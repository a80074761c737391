/**
 * The extension's state while it runs: the settings, the supervised server run, the job list and
 * the active job, the analysis progress, and the status bar item built from them (its figures
 * come written from the server's `perfline/summary`). Commands
 * (`commands.ts`) call into it; it owns no UI other than the status bar and error messages.
 * `onDidChangeResult` tells views of a job (the report panels) that its result changed.
 */

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  type LanguageClient,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';

import { gaveUpMessage, startFailureMessage } from './failure';
import { chooseActiveJob, type Job, parseJobs } from './jobs';
import { createServerRun, type ServerRun } from './languageClient';
import { LogTail } from './logTail';
import { probeServer } from './probe';
import { asProgressValue, ProgressTracker } from './progress';
import { describeChange, type JobSummary, Methods, parseSummary, reanalyzeParams } from './protocol';
import { selectedInterpreter } from './python';
import { describeCommand, resolveServerCommand, type ServerCommand } from './serverCommand';
import {
  needsPush,
  needsRestart,
  type PerflineSettings,
  readSettings,
  serverSettings,
} from './settings';
import { statusView, type ServerState } from './statusText';
import { Supervisor } from './supervisor';

const ACTIVE_JOB_KEY = 'perfline.activeJob';
const STOP_TIMEOUT_MS = 3_000;
const REFRESH_DEBOUNCE_MS = 150;

export class Controller implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  private readonly tail = new LogTail();
  private readonly status: vscode.StatusBarItem;
  private readonly progress = new ProgressTracker();
  private readonly supervisor: Supervisor;
  private readonly disposables: { dispose(): unknown }[] = [];
  private settings: PerflineSettings;
  private run: ServerRun | undefined;
  private command: ServerCommand | undefined;
  private serverState: ServerState = 'idle';
  private jobs: Job[] = [];
  private activeJob: string | undefined;
  private readonly documents = new Map<string, unknown>();
  private summary: JobSummary | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private lastProblems = '';
  private readonly resultChanged = new vscode.EventEmitter<string | undefined>();
  /** A job's result changed (`undefined`: every job's may have). */
  readonly onDidChangeResult = this.resultChanged.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly root: vscode.WorkspaceFolder,
  ) {
    this.output = vscode.window.createOutputChannel('perfline');
    this.status = vscode.window.createStatusBarItem('perfline.status', vscode.StatusBarAlignment.Left, 10);
    this.status.name = 'perfline';
    this.activeJob = context.workspaceState.get<string>(ACTIVE_JOB_KEY);
    this.settings = this.readSettings();
    this.supervisor = new Supervisor({
      start: () => this.startServer(),
      stop: () => this.stopServer(),
      now: () => Date.now(),
      setTimer: (callback, delayMs) => {
        const handle = setTimeout(callback, delayMs);
        return { dispose: () => clearTimeout(handle) };
      },
      onState: (state) => {
        this.serverState = state;
        if (state !== 'running') {
          this.progress.clear();
        }
        this.updateStatus();
        if (state === 'running') {
          void this.refresh();
        }
      },
      onStartFailed: (error) => this.reportStartFailure(error),
      onGaveUp: (crashes, windowMs) => this.offerActions(gaveUpMessage(crashes, windowMs, this.tail.tail(20))),
      onRestartScheduled: (delayMs, attempt) =>
        this.output.appendLine(`[perfline] server stopped unexpectedly; restart ${attempt} in ${delayMs} ms`),
    });
    this.disposables.push(
      this.output,
      this.status,
      this.resultChanged,
      vscode.workspace.onDidChangeConfiguration((event) => this.onConfigurationChanged(event)),
    );
    this.updateStatus();
    this.status.show();
  }

  get client(): LanguageClient | undefined {
    return this.serverState === 'running' ? this.run?.client : undefined;
  }

  get currentJob(): string | undefined {
    return this.activeJob;
  }

  get knownJobs(): readonly Job[] {
    return this.jobs;
  }

  get currentSettings(): PerflineSettings {
    return this.settings;
  }

  start(): Promise<void> {
    return this.supervisor.start();
  }

  restart(): Promise<void> {
    return this.supervisor.restart();
  }

  showLog(): void {
    this.output.show(true);
  }

  /** Sends a request to the running server; throws a readable error when there is none. */
  async request(method: string, params: object): Promise<unknown> {
    const client = this.client;
    if (client === undefined) {
      throw new Error(`the perfline server is not running (${this.serverState})`);
    }
    return client.sendRequest(method, params);
  }

  async reanalyze(job: string | undefined): Promise<unknown> {
    return this.request(Methods.reanalyze, reanalyzeParams(job));
  }

  /** The `perfline/result` answer of a job (fetched and cached until the result changes). */
  async result(job: string): Promise<unknown> {
    const cached = this.documents.get(job);
    if (cached !== undefined) {
      return cached;
    }
    const raw = await this.request(Methods.result, { job });
    this.documents.set(job, raw);
    return raw;
  }

  async selectJob(job: string): Promise<void> {
    this.activeJob = job;
    await this.context.workspaceState.update(ACTIVE_JOB_KEY, job);
    await this.refresh();
  }

  /** Re-reads the job list and the active job's result, then updates the status bar. */
  async refresh(): Promise<void> {
    if (this.client === undefined) {
      return;
    }
    try {
      this.jobs = parseJobs(await this.request(Methods.jobs, {}));
      this.activeJob = chooseActiveJob(this.jobs, this.activeJob);
      this.summary = undefined;
      const active = this.jobs.find((j) => j.id === this.activeJob);
      if (active !== undefined && active.hasResult !== false) {
        const params = { job: active.id, metric: this.settings.hints.metric };
        this.summary = parseSummary(await this.request(Methods.summary, params));
      }
    } catch (error) {
      this.output.appendLine(`[perfline] could not read the jobs or the active result: ${messageOf(error)}`);
    }
    this.updateStatus();
  }

  dispose(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    void this.supervisor.dispose();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  /** Stops the server; resolves once it is down (or killed after a timeout). */
  async shutdown(): Promise<void> {
    await this.supervisor.dispose();
  }

  private readSettings(): PerflineSettings {
    const config = vscode.workspace.getConfiguration('perfline', this.root.uri);
    const readout = readSettings((key) => config.get(key));
    const problems = readout.problems.join('\n');
    if (problems !== '' && problems !== this.lastProblems) {
      this.output.appendLine(`[perfline] settings: ${problems}`);
      void vscode.window.showWarningMessage(readout.problems.join(' '));
    }
    this.lastProblems = problems;
    return readout.settings;
  }

  private onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration('perfline', this.root.uri)) {
      return;
    }
    const before = this.settings;
    this.settings = this.readSettings();
    this.output.appendLine(`[perfline] settings changed: ${JSON.stringify(serverSettings(this.settings))}`);
    if (needsRestart(before, this.settings)) {
      this.output.appendLine('[perfline] server settings changed; restarting the server');
      void this.supervisor.restart();
      return;
    }
    if (needsPush(before, this.settings)) {
      this.pushSettings();
    }
    if (before.hints.metric !== this.settings.hints.metric) {
      void this.refresh();
    }
  }

  /** `workspace/didChangeConfiguration`, then re-request hints and lenses of open editors. */
  private pushSettings(): void {
    const client = this.client;
    if (client === undefined) {
      return;
    }
    const settings = { perfline: serverSettings(this.settings) };
    client
      .sendNotification(DidChangeConfigurationNotification.type, { settings })
      .then(() => {
        this.output.appendLine('[perfline] sent workspace/didChangeConfiguration; refreshing hints and lenses');
        this.refreshEditors(client);
      })
      .catch((error: unknown) => this.output.appendLine(`[perfline] could not send settings: ${messageOf(error)}`));
  }

  private refreshEditors(client: LanguageClient): void {
    const hints = client.getFeature('textDocument/inlayHint');
    const lenses = client.getFeature('textDocument/codeLens');
    for (const editor of vscode.window.visibleTextEditors) {
      hints.getProvider(editor.document)?.onDidChangeInlayHints.fire();
      lenses.getProvider(editor.document)?.onDidChangeCodeLensEmitter.fire();
    }
  }

  private async startServer(): Promise<void> {
    const launch = this.settings.server;
    const interpreter =
      launch.path === '' && launch.python === '' ? await selectedInterpreter(this.root.uri) : undefined;
    const command = resolveServerCommand(launch, interpreter);
    this.command = command;
    const cwd = this.root.uri.fsPath;
    this.tail.clear();
    this.output.appendLine(`[perfline] starting ${describeCommand(command)} (from ${command.origin}) in ${cwd}`);

    const probe = await probeServer(command, cwd);
    if (!probe.ok) {
      this.tail.append(probe.stderr);
      this.output.append(probe.stderr);
      throw new Error(probe.error ?? 'the interpreter cannot import perfline');
    }

    const run = createServerRun(command, cwd, {
      settings: () => this.settings,
      onClosed: () => this.supervisor.crashed(),
      tail: this.tail,
      output: this.output,
    });
    this.run = run;
    const client = run.client;
    client.onNotification(Methods.resultChanged, (params: unknown) => this.onResultChanged(params));
    await client.start();
    // Replace the library's progress UI with ours: spinner and message in the status bar item.
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      try {
        const subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
          const parsed = asProgressValue(value);
          if (parsed === undefined) {
            return;
          }
          this.progress.update(token, parsed);
          if (parsed.kind === 'end') {
            subscription.dispose();
          }
          this.updateStatus();
        });
      } catch (error) {
        this.output.appendLine(`[perfline] progress token ${String(token)}: ${messageOf(error)}`);
      }
    });
    this.documents.clear();
  }

  private async stopServer(): Promise<void> {
    const run = this.run;
    this.run = undefined;
    if (run === undefined) {
      return;
    }
    try {
      if (run.client.isRunning()) {
        await run.client.stop(STOP_TIMEOUT_MS);
      }
    } catch (error) {
      this.output.appendLine(`[perfline] stopping the server: ${messageOf(error)}`);
    }
    try {
      await run.client.dispose(STOP_TIMEOUT_MS);
    } catch {
      // already stopped
    }
    run.kill();
  }

  private onResultChanged(params: unknown): void {
    const change = describeChange(params);
    const job = change.job;
    this.output.appendLine(`[perfline] result changed: ${change.text}`);
    if (job === undefined) {
      this.documents.clear();
    } else {
      this.documents.delete(job);
    }
    this.resultChanged.fire(job);
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refresh();
    }, REFRESH_DEBOUNCE_MS);
  }

  private reportStartFailure(error: unknown): void {
    const command = this.command;
    const message =
      command === undefined
        ? `perfline: the server did not start: ${messageOf(error)}`
        : startFailureMessage({ command, error: messageOf(error), stderrTail: this.tail.tail(20) });
    this.output.appendLine(`[perfline] ${message}`);
    this.offerActions(message);
  }

  private offerActions(message: string): void {
    void vscode.window.showErrorMessage(message, 'Show Log', 'Open Settings', 'Retry').then((choice) => {
      if (choice === 'Show Log') {
        this.showLog();
      } else if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'perfline.server');
      } else if (choice === 'Retry') {
        void this.supervisor.restart();
      }
    });
  }

  private updateStatus(): void {
    const progress = this.progress.state();
    const job = this.jobs.find((j) => j.id === this.activeJob);
    const view = statusView({
      server: this.serverState,
      busy: progress.busy,
      progressMessage: progress.message,
      jobLabel: job?.label ?? this.activeJob,
      summary: this.summary,
      jobError: job?.error,
    });
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    this.status.accessibilityInformation = { label: view.accessibilityLabel, role: 'button' };
    this.status.command = view.command;
    this.status.backgroundColor = view.isError ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
