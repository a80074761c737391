/**
 * The `perfline.*` commands: Reanalyze, Show Result JSON, Show Breakdown, Show Report, Select
 * Job, Set Current Result as Baseline, Clear Baseline, Show Log, Restart Server. Each reads its
 * arguments (a job id when invoked from a code lens or a script; Show Report also
 * `{job, baseline}`), asks the controller, and shows the outcome.
 */

import * as vscode from 'vscode';

import type { Controller } from './controller';
import { messageOf } from './controller';
import { jobPickItems } from './jobs';
import {
  baselineMessage,
  blockArguments,
  type BreakdownParams,
  fileSafe,
  jobArgument,
  Methods,
  parseBaselineAnswer,
  parseBreakdown,
  resultDocument,
} from './protocol';
import { reportRequest } from './report';
import type { ReportPanels } from './reportPanel';
import type { VirtualDocuments } from './virtualDocs';

export const NO_WORKSPACE =
  'perfline: no perfline.toml or perfline inputs (ETRecord/ETDump, captures, standardized outputs) ' +
  'were found in this workspace, so the server is not running.';

/** Registers every command; `current()` is the controller once a perfline workspace was found. */
export function registerCommands(
  current: () => Controller | undefined,
  docs: VirtualDocuments,
  reports: ReportPanels,
): vscode.Disposable[] {
  const guarded =
    (name: string, body: (controller: Controller, ...args: unknown[]) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      const controller = current();
      if (controller === undefined) {
        void vscode.window.showInformationMessage(NO_WORKSPACE);
        return;
      }
      try {
        await body(controller, ...args);
      } catch (error) {
        controller.output.appendLine(`[perfline] ${name}: ${messageOf(error)}`);
        void vscode.window.showErrorMessage(`perfline: ${name} failed: ${messageOf(error)}`);
      }
    };

  const jobOrAsk = async (controller: Controller, arg: unknown): Promise<string | undefined> => {
    const explicit = jobArgument(arg);
    if (explicit !== undefined) {
      return explicit;
    }
    if (controller.currentJob === undefined) {
      await controller.refresh();
    }
    return controller.currentJob ?? (await pickJob(controller));
  };

  return [
    vscode.commands.registerCommand(
      'perfline.reanalyze',
      guarded('Reanalyze', async (controller, arg) => {
        const job = jobArgument(arg);
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'perfline: reanalysing' },
          () => controller.reanalyze(job),
        );
        await controller.refresh();
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.showResultJson',
      guarded('Show Result JSON', async (controller, arg) => {
        const job = await jobOrAsk(controller, arg);
        if (job === undefined) {
          return;
        }
        const raw = await controller.result(job);
        const uri = docs.set(`/${fileSafe(job)}/result.json`, `${JSON.stringify(resultDocument(raw), null, 2)}\n`);
        const document = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(document, { preview: false });
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.showBreakdown',
      guarded('Show Breakdown', async (controller, arg) => {
        await showBreakdown(controller, docs, jobArgument(arg), currentLine());
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.showBlock',
      guarded('Show Block Breakdown', async (controller, uri, first, last) => {
        await showBreakdown(controller, docs, undefined, codeBlock(uri, first, last) ?? currentLine());
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.showReport',
      guarded('Show Report', async (controller, arg) => {
        const request = reportRequest(arg);
        const job = request.job ?? (await jobOrAsk(controller, undefined));
        if (job === undefined) {
          return;
        }
        await reports.show(controller, { ...request, job });
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.selectJob',
      guarded('Select Job', async (controller) => {
        await controller.refresh();
        const job = await pickJob(controller);
        if (job !== undefined) {
          await controller.selectJob(job);
        }
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.setBaseline',
      guarded('Set Current Result as Baseline', async (controller, arg) => {
        const job = await jobOrAsk(controller, arg);
        if (job === undefined) {
          return;
        }
        const raw = await controller.request(Methods.setBaseline, { job, wait: true });
        const answer = parseBaselineAnswer(raw);
        if (answer === undefined) {
          throw new Error('the server sent no answer about the baseline');
        }
        const message = baselineMessage(answer);
        controller.output.appendLine(`[perfline] ${message.text}`);
        if (message.ok) {
          void vscode.window.showInformationMessage(message.text);
        } else {
          void vscode.window.showErrorMessage(message.text);
        }
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.clearBaseline',
      guarded('Clear Baseline', async (controller, arg) => {
        const job = await jobOrAsk(controller, arg);
        if (job === undefined) {
          return;
        }
        await controller.request(Methods.clearBaseline, { job, wait: true });
        void vscode.window.showInformationMessage(
          `perfline: the baseline set for job ${job} is cleared (a perfline.toml baseline applies again).`,
        );
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.showLog',
      guarded('Show Log', (controller) => {
        controller.showLog();
        return Promise.resolve();
      }),
    ),
    vscode.commands.registerCommand(
      'perfline.restartServer',
      guarded('Restart Server', (controller) => controller.restart()),
    ),
  ];
}

async function pickJob(controller: Controller): Promise<string | undefined> {
  const jobs = controller.knownJobs;
  if (jobs.length === 0) {
    void vscode.window.showInformationMessage('perfline: the server reports no analysis jobs in this workspace.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(jobPickItems(jobs, controller.currentJob), {
    title: 'perfline: select the active job',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.jobId;
}

/** Lines (0-based, inclusive) whose breakdown is shown (the server titles the view). */
interface Selection {
  readonly uri: vscode.Uri;
  readonly start: number;
  readonly end: number;
}

/** The editor's current line, when it shows a file. */
function currentLine(): Selection | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.uri.scheme !== 'file') {
    return undefined;
  }
  const line = editor.selection.active.line;
  return { uri: editor.document.uri, start: line, end: line };
}

/**
 * The block (def/class) a code lens stands on: the server sends the document's URI and the
 * block's first and last line (1-based, found with Python's `ast`), so the client never guesses
 * where a block ends.
 */
function codeBlock(uriArg: unknown, firstArg: unknown, lastArg: unknown): Selection | undefined {
  const block = blockArguments(uriArg, firstArg, lastArg);
  return block === undefined ? undefined : { uri: vscode.Uri.parse(block.uri), start: block.start, end: block.end };
}

/**
 * The breakdown the server renders (`perfline/breakdown`) of the selected lines, or of the whole
 * model when they have no figures, shown as a rendered Markdown preview.
 */
async function showBreakdown(
  controller: Controller,
  docs: VirtualDocuments,
  jobArg: string | undefined,
  selection: Selection | undefined,
): Promise<void> {
  const job = jobArg ?? controller.currentJob;
  const params: BreakdownParams = {
    ...(job === undefined ? {} : { job }),
    ...(selection === undefined
      ? {}
      : { file: selection.uri.toString(), startLine: selection.start + 1, endLine: selection.end + 1 }),
  };
  const breakdown = parseBreakdown(await controller.request(Methods.breakdown, params));
  if (breakdown === undefined) {
    throw new Error('the server sent no breakdown');
  }
  const name = breakdown.lines.length > 0 && selection !== undefined ? `lines-${selection.start + 1}-${selection.end + 1}` : 'model';
  const uri = docs.set(`/${fileSafe(breakdown.job)}/breakdown-${name}.md`, breakdown.markdown);
  await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
}
