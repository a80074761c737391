/**
 * Text and tooltip of the status bar item, from the server state, the analysis progress and the
 * active job's model totals. Pure.
 */

import { type Metric, metricLabel } from './documentModel';
import { formatValue } from './format';

export type ServerState = 'starting' | 'running' | 'restarting' | 'stopped' | 'failed' | 'idle';

export interface StatusInput {
  readonly server: ServerState;
  readonly busy: boolean;
  readonly progressMessage: string | undefined;
  readonly jobLabel: string | undefined;
  readonly totals: readonly Metric[];
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
  const figures = input.totals
    .filter((m) => m.value !== undefined)
    .map((m) => formatValue(m.value ?? 0, m.unit));
  const job = input.jobLabel ?? 'no job';
  const summary = figures.length > 0 ? figures.join(' · ') : job;
  const icon = input.busy ? '$(sync~spin)' : input.jobError !== undefined ? '$(warning)' : '$(pulse)';
  const tooltipLines = [`perfline job: ${job}`];
  for (const metric of input.totals) {
    tooltipLines.push(`${metricLabel(metric)}: ${metric.value === undefined ? 'n/a' : formatValue(metric.value, metric.unit)}`);
  }
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
