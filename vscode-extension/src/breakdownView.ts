/**
 * Renders the "Show Breakdown" view: a Markdown document with the model-level metrics and a table
 * of entities (one line's entities, or every annotated line of the model) against their metrics.
 * Pure.
 */

import {
  type BreakdownRow,
  type Entity,
  type Metric,
  type StandardizedDocument,
  metricLabel,
  performanceResults,
} from './documentModel';
import { formatValue, markdownTable } from './format';

export interface BreakdownViewInput {
  readonly title: string;
  readonly jobLabel: string;
  readonly document: StandardizedDocument;
  readonly rows: readonly BreakdownRow[];
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

/** `dscnn.py:42 conv1` style label of an entity. */
export function entityLabel(entity: Entity): string {
  const file = entity.attributes.file;
  const line = entity.attributes.line;
  if (typeof file === 'string' && typeof line === 'number') {
    const where = `${baseName(file)}:${line}`;
    return entity.name === '' || entity.name.includes(where) ? where : `${where} ${entity.name}`;
  }
  return entity.name;
}

function metricCell(metric: Metric | undefined): string {
  if (metric === undefined) {
    return '';
  }
  if (metric.value === undefined) {
    return 'n/a';
  }
  return formatValue(metric.value, metric.unit);
}

/** The table of rows: one column per metric label, in order of first appearance. */
export function rowsTable(rows: readonly BreakdownRow[]): string {
  const labels: string[] = [];
  for (const row of rows) {
    for (const label of row.values.keys()) {
      if (!labels.includes(label)) {
        labels.push(label);
      }
    }
  }
  const header = ['entity', 'kind', 'placement', ...labels];
  const body = rows.map((row) => [
    entityLabel(row.entity),
    row.entity.kind,
    row.entity.placement ?? '',
    ...labels.map((label) => metricCell(row.values.get(label))),
  ]);
  return markdownTable(header, body);
}

export function renderBreakdown(input: BreakdownViewInput): string {
  const lines: string[] = [`# ${input.title}`, '', `Job: ${input.jobLabel}`, ''];
  const result = performanceResults(input.document)[0];
  if (result !== undefined) {
    const mode = result.mode === undefined ? '' : `, mode ${result.mode}`;
    lines.push(`Result: ${result.kind} (${result.status}) from ${result.producer}${mode}`, '');
    const numeric = result.metrics;
    if (numeric.length > 0) {
      lines.push('## Model', '');
      lines.push(
        markdownTable(
          ['metric', 'value'],
          numeric.map((m) => [metricLabel(m), m.value === undefined ? `n/a (${m.reason ?? ''})` : formatValue(m.value, m.unit)]),
        ),
        '',
      );
    }
  }
  lines.push('## Breakdown', '');
  if (input.rows.length === 0) {
    lines.push('No breakdowns for this selection.');
  } else {
    lines.push(rowsTable(input.rows));
  }
  lines.push('');
  return lines.join('\n');
}
