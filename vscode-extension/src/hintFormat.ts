/**
 * Client-side presentation of the inlay hints: applies `perfline.hints.metric`, `.format` and
 * `.minShare` to the figures the server reports for a line (`perfline/lineAnnotations` with
 * `metrics: true`). With the default settings the server's own label is kept untouched; a
 * setting change re-renders the hints without a reload. Pure.
 */

import { formatShare, formatValue } from './format';
import type { HintSettings } from './settings';
import { DEFAULT_HINT_FORMAT, DEFAULT_METRIC } from './settings';

/** One entity's figures on a line, as `perfline/lineAnnotations` reports them. */
export interface LineFigure {
  readonly job: string | undefined;
  /** The server's dominant figure for the line and its share of the model (0..1). */
  readonly value: number | undefined;
  readonly metric: { readonly name: string; readonly unit: string } | undefined;
  readonly statistic: string | undefined;
  readonly share: number | undefined;
  /** All metrics of the line (name, unit, value). */
  readonly metrics: readonly { readonly name: string; readonly unit: string; readonly value: number | undefined }[];
}

/** What the server appends to labels of lines edited since the analysis. */
export const STALE_MARK = ' (stale)';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseFigure(raw: unknown): LineFigure | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const metric = isObject(raw.metric) && typeof raw.metric.name === 'string'
    ? { name: raw.metric.name, unit: str(raw.metric.unit) ?? '' }
    : undefined;
  const metrics = Array.isArray(raw.metrics)
    ? raw.metrics.flatMap((m) =>
        isObject(m) && typeof m.name === 'string' ? [{ name: m.name, unit: str(m.unit) ?? '', value: num(m.value) }] : [],
      )
    : [];
  return {
    job: str(raw.job),
    value: num(raw.value),
    metric,
    statistic: str(raw.statistic),
    share: num(raw.share),
    metrics,
  };
}

/** `perfline/lineAnnotations` -> figures by 0-based current line. */
export function figuresByLine(raw: unknown): Map<number, LineFigure[]> {
  const out = new Map<number, LineFigure[]>();
  const lines = isObject(raw) && Array.isArray(raw.lines) ? raw.lines : [];
  for (const item of lines) {
    if (!isObject(item)) {
      continue;
    }
    const oneBased = 'currentLine' in item ? item.currentLine : item.line;
    if (typeof oneBased !== 'number' || oneBased < 1) {
      continue;
    }
    const figures = (Array.isArray(item.entities) ? item.entities : []).flatMap((e) => {
      const figure = parseFigure(e);
      return figure === undefined ? [] : [figure];
    });
    out.set(oneBased - 1, [...(out.get(oneBased - 1) ?? []), ...figures]);
  }
  return out;
}

/** Whether the settings leave the server's labels as they are. */
export function isDefaultPresentation(hints: HintSettings): boolean {
  return hints.metric === DEFAULT_METRIC && hints.format === DEFAULT_HINT_FORMAT && hints.minShare <= 0;
}

/** Whether a line is hidden by the share threshold (lines without a known share stay). */
export function belowThreshold(figures: readonly LineFigure[], minShare: number): boolean {
  const shares = figures.map((f) => f.share).filter((s): s is number => s !== undefined);
  return minShare > 0 && shares.length > 0 && Math.max(...shares) * 100 < minShare;
}

interface Chosen {
  readonly value: number;
  readonly unit: string;
  readonly metric: string;
  readonly share: number | undefined;
}

function choose(figure: LineFigure, metric: string): Chosen | undefined {
  if (metric === DEFAULT_METRIC || figure.metric?.name === metric) {
    if (figure.value === undefined || figure.metric === undefined) {
      return undefined;
    }
    const name = figure.statistic === undefined ? figure.metric.name : `${figure.metric.name} ${figure.statistic}`;
    return { value: figure.value, unit: figure.metric.unit, metric: name, share: figure.share };
  }
  const found = figure.metrics.find((m) => m.name === metric && m.value !== undefined);
  return found?.value === undefined ? undefined : { value: found.value, unit: found.unit, metric: found.name, share: undefined };
}

/** Fills a template; an unknown share leaves no dangling separator or empty brackets. */
export function fillTemplate(template: string, chosen: Chosen): string {
  const values: Record<string, string> = {
    value: formatValue(chosen.value, chosen.unit),
    unit: chosen.unit,
    metric: chosen.metric,
    share: chosen.share === undefined ? '' : formatShare(chosen.share),
  };
  return template
    .replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/(\s*[·|,;:-])+\s*$/, '')
    .replace(/^\s*([·|,;:-]\s*)+/, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/**
 * The hint label for a line under the settings, or `undefined` to hide the hint. Several jobs
 * on one line are joined with two spaces, like the server does.
 */
export function hintLabel(figures: readonly LineFigure[], hints: HintSettings): string | undefined {
  if (belowThreshold(figures, hints.minShare)) {
    return undefined;
  }
  const parts = figures.flatMap((figure) => {
    const chosen = choose(figure, hints.metric);
    return chosen === undefined ? [] : [fillTemplate(hints.format, chosen)];
  });
  const unique = [...new Set(parts)].filter((p) => p !== '');
  return unique.length === 0 ? undefined : unique.join('  ');
}
