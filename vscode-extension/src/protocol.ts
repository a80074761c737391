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
  resultChanged: 'perfline/resultChanged',
} as const;

export interface JobParams {
  readonly job: string;
}

export interface EntityParams {
  readonly job: string;
  readonly id: string;
}

export interface UriParams {
  readonly uri: string;
}

export function reanalyzeParams(job: string | undefined): Partial<JobParams> {
  return job === undefined ? {} : { job };
}

/** One annotated line of `perfline/lineAnnotations`; `line` is 0-based like LSP positions. */
export interface LineAnnotation {
  readonly line: number;
  readonly job: string | undefined;
  readonly entityIds: readonly string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Reads `perfline/lineAnnotations` answers: `{lines: [...]}` or `[...]`, each item with `line`
 * (0-based) or `line_number` (1-based), entity ids in `entity_ids`/`entities` (strings or
 * `{id}`) and an optional `job`.
 */
export function parseLineAnnotations(raw: unknown): LineAnnotation[] {
  const items = Array.isArray(raw) ? raw : isObject(raw) ? (Array.isArray(raw.lines) ? raw.lines : Array.isArray(raw.annotations) ? raw.annotations : []) : [];
  const topJob = isObject(raw) && typeof raw.job === 'string' ? raw.job : undefined;
  return items.flatMap((item): LineAnnotation[] => {
    if (!isObject(item)) {
      return [];
    }
    let line: number | undefined;
    if (typeof item.line === 'number') {
      line = item.line;
    } else if (typeof item.line_number === 'number') {
      line = item.line_number - 1;
    }
    if (line === undefined) {
      return [];
    }
    const fromObjects = Array.isArray(item.entities)
      ? item.entities.flatMap((e) => (typeof e === 'string' ? [e] : isObject(e) && typeof e.id === 'string' ? [e.id] : []))
      : [];
    const ids = [...strings(item.entity_ids), ...fromObjects];
    const job = typeof item.job === 'string' ? item.job : topJob;
    return [{ line, job, entityIds: [...new Set(ids)] }];
  });
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
