/**
 * Text and tooltip of the status bar item, from the server state, the analysis progress and the
 * active job's summary as the server renders it (`perfline/summary`: the headline figures, every
 * model metric, what ran). Pure: no number is formatted here.
 */

import type { JobSummary } from './protocol';

export type ServerState = 'starting' | 'running' | 'restarting' | 'stopped' | 'failed' | 'idle';

export interface StatusInput {
  readonly server: ServerState;
  readonly busy: boolean;
  readonly progressMessage: string | undefined;
  readonly jobLabel: string | undefined;
  readonly summary: JobSummary | undefined;
  readonly jobError: string | undefined;
}

export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
  /** Command run on click. */
  readonly command: 'perfline.selectJob' | 'perfline.showLog';
  readonly isError: boolean;
  /** What screen readers announce: the text without icons, prefixed with `perfline:`. */
  readonly accessibilityLabel: string;
}

export function statusView(input: StatusInput): StatusView {
  const view = statusParts(input);
  const plain = view.text.replace(/\$\([^)]*\)\s*/g, '').trim();
  const label = plain === 'perfline' ? `perfline: ${input.server}` : `perfline: ${plain}`;
  return { ...view, accessibilityLabel: input.busy ? `${label} (analysing)` : label };
}

function statusParts(input: StatusInput): Omit<StatusView, 'accessibilityLabel'> {
  if (input.server === 'failed') {
    return {
      text: '$(error) perfline',
      tooltip: 'The perfline server is not running. Click to show its log.',
      command: 'perfline.showLog',
      isError: true,
    };
  }
  if (input.server === 'starting' || input.server === 'restarting') {
    return {
      text: '$(loading~spin) perfline',
      tooltip: input.server === 'starting' ? 'Starting the perfline server…' : 'Restarting the perfline server…',
      command: 'perfline.showLog',
      isError: false,
    };
  }
  const figures = input.summary?.headline ?? [];
  const job = input.jobLabel ?? 'no job';
  const summary = figures.length > 0 ? figures.join(' · ') : job;
  const icon = input.busy ? '$(sync~spin)' : input.jobError !== undefined ? '$(warning)' : '$(pulse)';
  const tooltipLines = [`perfline job: ${job}`];
  if (input.summary !== undefined && input.summary.run !== '') {
    tooltipLines.push(input.summary.run);
  }
  tooltipLines.push(...(input.summary?.metrics ?? []));
  if (input.busy) {
    tooltipLines.push(`Analysing${input.progressMessage === undefined ? '…' : `: ${input.progressMessage}`}`);
  }
  if (input.jobError !== undefined) {
    tooltipLines.push(`Last analysis failed: ${input.jobError}`);
  }
  tooltipLines.push('Click to select the job.');
  return {
    text: `${icon} ${summary}`,
    tooltip: tooltipLines.join('\n'),
    command: 'perfline.selectJob',
    isError: false,
  };
}
