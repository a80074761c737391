/**
 * The server's job list as the extension uses it: tolerant parsing of `perfline/jobs`, the quick
 * pick entries of "Select Job", and which job is active when the list changes. Pure.
 */

export interface Job {
  readonly id: string;
  readonly label: string;
  /** e.g. `ok`, `stale`, `error`, `running`, `pending` (whatever the server reports). */
  readonly state: string | undefined;
  readonly backend: string | undefined;
  readonly inputs: readonly string[];
  readonly error: string | undefined;
  /** Whether the job has a (possibly stale) result to show; `undefined` when not reported. */
  readonly hasResult: boolean | undefined;
  readonly stale: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(obj: Json, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === 'string' && value !== '') {
      return value;
    }
  }
  return undefined;
}

function errorText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') {
    return value;
  }
  if (isObject(value)) {
    return firstString(value, ['message', 'error', 'detail']);
  }
  return undefined;
}

export function parseJob(raw: unknown): Job | undefined {
  if (typeof raw === 'string') {
    return {
      id: raw,
      label: raw,
      state: undefined,
      backend: undefined,
      inputs: [],
      error: undefined,
      hasResult: undefined,
      stale: false,
    };
  }
  if (!isObject(raw)) {
    return undefined;
  }
  const id = firstString(raw, ['id', 'job', 'name']);
  if (id === undefined) {
    return undefined;
  }
  const inputs = Array.isArray(raw.inputs)
    ? raw.inputs.flatMap((i) => (typeof i === 'string' ? [i] : isObject(i) && typeof i.path === 'string' ? [i.path] : []))
    : [];
  return {
    id,
    label: firstString(raw, ['label', 'name', 'title']) ?? id,
    state: firstString(raw, ['state', 'status']),
    backend: firstString(raw, ['backend', 'producer']),
    inputs,
    error: errorText(raw.error) ?? errorText(raw.errors),
    hasResult: typeof raw.hasResult === 'boolean' ? raw.hasResult : undefined,
    stale: raw.stale === true,
  };
}

/** Accepts `[...]`, `{jobs: [...]}` or `{jobs: {id: {...}}}`. */
export function parseJobs(raw: unknown): Job[] {
  let items: unknown[] = [];
  if (Array.isArray(raw)) {
    items = raw;
  } else if (isObject(raw)) {
    const jobs = raw.jobs;
    if (Array.isArray(jobs)) {
      items = jobs;
    } else if (isObject(jobs)) {
      items = Object.entries(jobs).map(([id, value]) => (isObject(value) ? { id, ...value } : id));
    }
  }
  const seen = new Set<string>();
  return items.flatMap((item) => {
    const job = parseJob(item);
    if (job === undefined || seen.has(job.id)) {
      return [];
    }
    seen.add(job.id);
    return [job];
  });
}

/**
 * Keeps the previous choice while it exists; else the first job with a result and no error, else
 * the first with a result, else the first.
 */
export function chooseActiveJob(jobs: readonly Job[], previous: string | undefined): string | undefined {
  if (previous !== undefined && jobs.some((j) => j.id === previous)) {
    return previous;
  }
  const withResult = jobs.filter((j) => j.hasResult !== false);
  return (withResult.find((j) => j.error === undefined) ?? withResult[0] ?? jobs[0])?.id;
}

export interface JobPickItem {
  readonly label: string;
  readonly description: string;
  readonly detail: string;
  readonly jobId: string;
  readonly picked: boolean;
}

export function jobPickItems(jobs: readonly Job[], active: string | undefined): JobPickItem[] {
  return jobs.map((job) => {
    const bits = [job.backend, job.state, job.stale ? 'stale' : undefined].filter(
      (b): b is string => b !== undefined,
    );
    const detail = job.error !== undefined ? `error: ${job.error}` : job.inputs.join(', ');
    return {
      label: `${job.id === active ? '$(check) ' : ''}${job.label}`,
      description: bits.join(' · '),
      detail,
      jobId: job.id,
      picked: job.id === active,
    };
  });
}
