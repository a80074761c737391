/**
 * The report webview's logic, without `vscode`: the `perfline/reportHtml` params (with a fresh
 * nonce for the page's Content Security Policy), the answer, the local files the page may name,
 * and the messages the page posts (`{type: "openLine", file, line}`), checked before the
 * extension acts on one: only a file the server put on the page, only a line number. Pure.
 */

import { randomBytes } from 'node:crypto';

/** Params of `perfline/reportHtml` (docs/api.md). */
export interface ReportParams {
  readonly job?: string;
  readonly nonce: string;
  readonly metric?: string;
  readonly baseline?: string;
}

/** What the command was asked for: a job and, for the compare view, a baseline document. */
export interface ReportRequest {
  readonly job?: string;
  readonly baseline?: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A nonce for one rendering: 18 random bytes in base64 (24 characters of `[A-Za-z0-9+/]`). */
export function makeNonce(random: (size: number) => Buffer = randomBytes): string {
  return random(18).toString('base64');
}

/**
 * The command's argument: a job id (`'kws'`), or `{job, baseline}` (a script or a keybinding:
 * `baseline` is a standardized document inside the workspace, path or `file://` URI).
 */
export function reportRequest(arg: unknown): ReportRequest {
  if (typeof arg === 'string' && arg !== '') {
    return { job: arg };
  }
  if (!isObject(arg)) {
    return {};
  }
  const job = text(arg.job);
  const baseline = text(arg.baseline);
  return { ...(job === undefined ? {} : { job }), ...(baseline === undefined ? {} : { baseline }) };
}

/** The request params; `metric` `auto` (the hints' default) is left to the server. */
export function reportParams(request: ReportRequest, nonce: string, metric: string): ReportParams {
  return {
    nonce,
    ...(request.job === undefined ? {} : { job: request.job }),
    ...(metric === '' || metric === 'auto' ? {} : { metric }),
    ...(request.baseline === undefined ? {} : { baseline: request.baseline }),
  };
}

/** A `perfline/reportHtml` answer. */
export interface ReportPage {
  readonly job: string;
  readonly generation: number;
  readonly stale: boolean;
  readonly title: string;
  readonly html: string;
  /** The baseline document compared with (workspace path), when the page is the compare view. */
  readonly baseline: string | undefined;
  readonly warnings: readonly string[];
}

export function parseReport(raw: unknown): ReportPage | undefined {
  if (!isObject(raw) || typeof raw.job !== 'string' || typeof raw.html !== 'string') {
    return undefined;
  }
  const baseline = isObject(raw.baseline) ? raw.baseline : undefined;
  const warnings = Array.isArray(baseline?.warnings)
    ? baseline.warnings.filter((w): w is string => typeof w === 'string')
    : [];
  return {
    job: raw.job,
    generation: typeof raw.generation === 'number' ? raw.generation : 0,
    stale: raw.stale === true,
    title: text(raw.title) ?? `perfline report: ${raw.job}`,
    html: raw.html,
    baseline: text(baseline?.file),
    warnings,
  };
}

/** The panel's tab title: the job, its state, and the baseline of a compare view. */
export function panelTitle(page: ReportPage): string {
  const what = page.baseline === undefined ? `perfline report: ${page.job}` : `perfline compare: ${page.job}`;
  return `${what}${page.baseline === undefined ? '' : ` vs ${page.baseline}`}${page.stale ? ' (stale)' : ''}`;
}

const DATA_BLOCK = /<script type="application\/json" id="perfline-data"[^>]*>([\s\S]*?)<\/script>/;

/**
 * The local files the page names (each shown file's `location`, set by the server with
 * `locations=True`): the only files a message from the page may open.
 */
export function pageLocations(html: string): Set<string> {
  const found = new Set<string>();
  const block = DATA_BLOCK.exec(html)?.[1];
  if (block === undefined) {
    return found;
  }
  let data: unknown;
  try {
    data = JSON.parse(block);
  } catch {
    return found;
  }
  const views = isObject(data) && Array.isArray(data.views) ? data.views : [];
  for (const view of views) {
    const files = isObject(view) && Array.isArray(view.files) ? view.files : [];
    for (const file of files) {
      const location = isObject(file) ? text(file.location) : undefined;
      if (location !== undefined) {
        found.add(location);
      }
    }
  }
  return found;
}

/** A line to open: an absolute file path and a 1-based line. */
export interface OpenLine {
  readonly file: string;
  readonly line: number;
}

/** The line an `openLine` message asks for, if it is one and names a file of the page. */
export function openLineTarget(message: unknown, allowed: ReadonlySet<string>): OpenLine | undefined {
  if (!isObject(message) || message.type !== 'openLine') {
    return undefined;
  }
  const file = text(message.file);
  const line = message.line;
  if (file === undefined || !allowed.has(file)) {
    return undefined;
  }
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 1) {
    return undefined;
  }
  return { file, line };
}
