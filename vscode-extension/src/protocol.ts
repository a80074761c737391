/**
 * Names and parameter shapes of perfline's custom JSON-RPC methods (see docs/api.md), and small
 * readers for their answers that the extension relies on. Pure.
 */

export const Methods = {
  jobs: 'perfline/jobs',
  result: 'perfline/result',
  lineAnnotations: 'perfline/lineAnnotations',
  entity: 'perfline/entity',
  reanalyze: 'perfline/reanalyze',
  status: 'perfline/status',
  summary: 'perfline/summary',
  breakdown: 'perfline/breakdown',
  reportHtml: 'perfline/reportHtml',
  compare: 'perfline/compare',
  setBaseline: 'perfline/setBaseline',
  clearBaseline: 'perfline/clearBaseline',
  resultChanged: 'perfline/resultChanged',
} as const;

export interface JobParams {
  readonly job: string;
}

export interface EntityParams {
  readonly job: string;
  readonly entityId: string;
  readonly resultIndex?: number;
}

export interface LineAnnotationsParams {
  /** `file://` URI or workspace path of the source file. */
  readonly file: string;
  readonly job?: string;
}

export function reanalyzeParams(job: string | undefined): Partial<JobParams> {
  return job === undefined ? {} : { job };
}

/** The entities of one job on one source line; `line` is 0-based like LSP positions. */
export interface LineAnnotation {
  readonly line: number;
  readonly job: string | undefined;
  readonly entityIds: readonly string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a `perfline/lineAnnotations` answer, `{file, lines: [{line, currentLine, label,
 * entities: [{job, entityId, ...}]}]}` with 1-based `line` (as analysed) and `currentLine` (after
 * the editor's unsaved edits, `null` when the line was deleted). Returns one annotation per line
 * and job, at the current line, 0-based.
 */
export function parseLineAnnotations(raw: unknown): LineAnnotation[] {
  const items = isObject(raw) && Array.isArray(raw.lines) ? raw.lines : [];
  const out: LineAnnotation[] = [];
  for (const item of items) {
    if (!isObject(item)) {
      continue;
    }
    const oneBased = 'currentLine' in item ? item.currentLine : item.line;
    if (typeof oneBased !== 'number' || !Number.isInteger(oneBased) || oneBased < 1) {
      continue;
    }
    const byJob = new Map<string | undefined, string[]>();
    for (const entity of Array.isArray(item.entities) ? item.entities : []) {
      if (!isObject(entity) || typeof entity.entityId !== 'string') {
        continue;
      }
      const job = typeof entity.job === 'string' ? entity.job : undefined;
      const ids = byJob.get(job) ?? [];
      if (!ids.includes(entity.entityId)) {
        ids.push(entity.entityId);
      }
      byJob.set(job, ids);
    }
    for (const [job, entityIds] of byJob) {
      out.push({ line: oneBased - 1, job, entityIds });
    }
  }
  return out;
}

/** The annotations of one 0-based line, for the active job when one is given and present. */
export function annotationsAt(
  annotations: readonly LineAnnotation[],
  line: number,
  job: string | undefined,
): LineAnnotation[] {
  const onLine = annotations.filter((a) => a.line === line);
  const ofJob = onLine.filter((a) => a.job === undefined || a.job === job);
  return ofJob.length > 0 ? ofJob : onLine;
}

/** The processed document inside a `perfline/result` answer (`{job, ..., document}`). */
export function resultDocument(raw: unknown): unknown {
  return isObject(raw) && isObject(raw.document) ? raw.document : raw;
}

/** A block's lines, 0-based and inclusive, in the document at `uri`. */
export interface BlockArguments {
  readonly uri: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Reads the arguments of the server's `perfline.showBlock` code lens command: the document URI
 * and the block's first and last line (1-based, inclusive). `undefined` unless all three are
 * well-formed.
 */
export function blockArguments(uri: unknown, first: unknown, last: unknown): BlockArguments | undefined {
  const line = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;
  if (typeof uri !== 'string' || uri === '' || !line(first) || !line(last) || last < first) {
    return undefined;
  }
  return { uri, start: first - 1, end: last - 1 };
}

/** A job id passed as the first command argument (string or `{job}`), if any. */
export function jobArgument(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg !== '') {
    return arg;
  }
  if (typeof arg === 'object' && arg !== null) {
    const job = (arg as { job?: unknown }).job;
    if (typeof job === 'string' && job !== '') {
      return job;
    }
  }
  return undefined;
}

/** Reads a `perfline/resultChanged` notification: the job (if any) and a one-line description. */
export function describeChange(params: unknown): { job: string | undefined; text: string } {
  if (!isObject(params)) {
    return { job: undefined, text: 'everything' };
  }
  const job = typeof params.job === 'string' ? params.job : undefined;
  const parts = [
    typeof params.kind === 'string' ? params.kind : 'change',
    job ?? 'all jobs',
    typeof params.generation === 'number' ? `generation ${params.generation}` : undefined,
    params.stale === true ? 'stale' : undefined,
    typeof params.error === 'string' && params.error !== '' ? `error: ${params.error}` : undefined,
  ];
  return { job, text: parts.filter((p): p is string => p !== undefined).join(' ') };
}

/** A job's headline as the server renders it (`perfline/summary`). */
export interface JobSummary {
  readonly job: string;
  /** The status bar's figures, written by the server (`12.0 ms`, `83.5 inferences/s`). */
  readonly headline: readonly string[];
  /** Every model metric as `name: value`. */
  readonly metrics: readonly string[];
  /** What ran (`ExecuTorch CPU kernels (no delegate), measured, 10 runs`). */
  readonly run: string;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Reads a `perfline/summary` answer; `undefined` when it is not one. */
export function parseSummary(raw: unknown): JobSummary | undefined {
  if (!isObject(raw) || typeof raw.job !== 'string') {
    return undefined;
  }
  return {
    job: raw.job,
    headline: strings(raw.headline),
    metrics: strings(raw.metrics),
    run: typeof raw.run === 'string' ? raw.run : '',
  };
}

/** Params of `perfline/breakdown`: a file's lines (1-based, inclusive), or the whole model. */
export interface BreakdownParams {
  readonly file?: string;
  readonly startLine?: number;
  readonly endLine?: number;
  readonly job?: string;
}

/** A `perfline/breakdown` answer: the server-rendered Markdown and what it covers. */
export interface Breakdown {
  readonly job: string;
  readonly title: string;
  readonly markdown: string;
  readonly lines: readonly number[];
}

export function parseBreakdown(raw: unknown): Breakdown | undefined {
  if (!isObject(raw) || typeof raw.job !== 'string' || typeof raw.markdown !== 'string') {
    return undefined;
  }
  const lines = Array.isArray(raw.lines) ? raw.lines.filter((n): n is number => typeof n === 'number') : [];
  return { job: raw.job, title: typeof raw.title === 'string' ? raw.title : raw.job, markdown: raw.markdown, lines };
}

/** A file-name-safe form of an id (job ids go into virtual document paths). */
export function fileSafe(text: string): string {
  const cleaned = text.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned === '' ? 'job' : cleaned;
}

/** A `perfline/setBaseline` answer: `{job, state: "set" | "scheduled" | "error", path, error}`. */
export interface BaselineAnswer {
  readonly job: string;
  readonly state: string;
  /** The stored document, workspace-relative (once written). */
  readonly path: string | undefined;
  readonly error: string | undefined;
}

export function parseBaselineAnswer(raw: unknown): BaselineAnswer | undefined {
  if (!isObject(raw) || typeof raw.job !== 'string') {
    return undefined;
  }
  return {
    job: raw.job,
    state: typeof raw.state === 'string' ? raw.state : 'set',
    path: typeof raw.path === 'string' ? raw.path : undefined,
    error: typeof raw.error === 'string' && raw.error !== '' ? raw.error : undefined,
  };
}

/** What the user is told after Set Current Result as Baseline. */
export function baselineMessage(answer: BaselineAnswer): { ok: boolean; text: string } {
  if (answer.error !== undefined) {
    return { ok: false, text: `perfline: the baseline of job ${answer.job} was not set: ${answer.error}` };
  }
  if (answer.state !== 'set') {
    return { ok: true, text: `perfline: the baseline of job ${answer.job} is being written.` };
  }
  const where = answer.path === undefined ? '' : ` (kept in ${answer.path})`;
  return {
    ok: true,
    text: `perfline: the current result of job ${answer.job} is now its baseline${where}; hints show the significant changes against it.`,
  };
}
