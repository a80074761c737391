/**
 * Settings of the extension: reads the raw `perfline.*` configuration values, validates them and
 * returns a normalized, immutable view plus human-readable problems. Pure (no `vscode` import): the
 * caller passes a getter over the configuration, so this is unit-tested with plain objects.
 *
 * The part the server cares about (hint metric, format, share threshold; the compare settings:
 * regression threshold, significance level, correction, estimate threshold) is sent to it as
 * `workspace/didChangeConfiguration` `{settings: {perfline: ServerSettings}}` and returned for
 * `workspace/configuration` pulls of the `perfline` section.
 */

export type TraceLevel = 'off' | 'messages' | 'verbose';

export const TRACE_LEVELS: readonly TraceLevel[] = ['off', 'messages', 'verbose'];

/** Placeholders allowed in `perfline.hints.format`. */
export const FORMAT_PLACEHOLDERS: readonly string[] = ['value', 'unit', 'metric', 'statistic', 'share', 'marker', 'delta'];

/** The server renders it; `{marker}` puts `▮▮▮` in front of the hints of hot lines. */
export const DEFAULT_HINT_FORMAT = '{marker} {value} {statistic} · {share}';
export const DEFAULT_METRIC = 'auto';

export interface HintSettings {
  /** `auto` (the result's dominant metric) or a metric name such as `inference_time`. */
  readonly metric: string;
  /** Template with `{value}`, `{unit}`, `{metric}`, `{statistic}`, `{share}`, `{marker}`, `{delta}`. */
  readonly format: string;
  /** Hints whose share of the model is below this percentage (0-100) are hidden. */
  readonly minShare: number;
}

/** How the server compares each job with its baseline (percentages as the user writes them). */
export interface CompareSettings {
  /** A line significantly worse than the baseline by more than this percentage gets a warning. */
  readonly regressionThreshold: number;
  /** Significance level of the corrected p-values of measured figures (0-1). */
  readonly level: number;
  /** Multiple-test control across the lines: Holm, Benjamini-Hochberg or none. */
  readonly correction: Correction;
  /** Percentage an estimate (no per-run values) must change by to count. */
  readonly estimateThreshold: number;
}

export type Correction = 'holm' | 'bh' | 'none';

export const CORRECTIONS: readonly Correction[] = ['holm', 'bh', 'none'];

export const DEFAULT_COMPARE: CompareSettings = {
  regressionThreshold: 5,
  level: 0.05,
  correction: 'holm',
  estimateThreshold: 0,
};

export interface ServerLaunchSettings {
  /** Path of a `perfline` executable; when set it wins over `python`. */
  readonly path: string;
  /** Python interpreter that runs `-m perfline serve`; empty means "ask the Python extension". */
  readonly python: string;
  /** Extra arguments appended after `serve --stdio`. */
  readonly extraArgs: readonly string[];
}

export interface PerflineSettings {
  readonly hints: HintSettings;
  readonly compare: CompareSettings;
  readonly server: ServerLaunchSettings;
  readonly trace: TraceLevel;
}

/** What the server receives (no launch details: they are the client's business). */
export interface ServerSettings {
  readonly hints: HintSettings;
  readonly compare: CompareSettings;
  readonly trace: { readonly server: TraceLevel };
}

export interface SettingsReadout {
  readonly settings: PerflineSettings;
  /** One line per rejected value, naming the setting, what was found and what is used instead. */
  readonly problems: readonly string[];
}

/** Reads one setting by its key below `perfline.` (e.g. `hints.metric`); `undefined` if unset. */
export type SettingGetter = (key: string) => unknown;

export const DEFAULT_SETTINGS: PerflineSettings = {
  hints: { metric: DEFAULT_METRIC, format: DEFAULT_HINT_FORMAT, minShare: 0 },
  compare: DEFAULT_COMPARE,
  server: { path: '', python: '', extraArgs: [] },
  trace: 'off',
};

/** Placeholder names used in a format template, in order of appearance. */
export function placeholdersOf(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    names.push(match[1] ?? '');
  }
  return names;
}

/** Reads and validates every `perfline.*` setting; invalid values fall back to the defaults. */
export function readSettings(get: SettingGetter): SettingsReadout {
  const problems: string[] = [];

  const text = (key: string, fallback: string): string => {
    const raw = get(key);
    if (raw === undefined || raw === null) {
      return fallback;
    }
    if (typeof raw !== 'string') {
      problems.push(`perfline.${key}: expected a string, found ${describe(raw)}; using "${fallback}"`);
      return fallback;
    }
    return raw.trim();
  };

  let metric = text('hints.metric', DEFAULT_METRIC);
  if (metric === '') {
    metric = DEFAULT_METRIC;
  }

  let format = text('hints.format', DEFAULT_HINT_FORMAT);
  const unknown = placeholdersOf(format).filter((name) => !FORMAT_PLACEHOLDERS.includes(name));
  if (format === '') {
    problems.push(`perfline.hints.format: empty; using "${DEFAULT_HINT_FORMAT}"`);
    format = DEFAULT_HINT_FORMAT;
  } else if (unknown.length > 0) {
    const allowed = FORMAT_PLACEHOLDERS.map((name) => `{${name}}`).join(', ');
    problems.push(
      `perfline.hints.format: unknown placeholder ${unknown.map((n) => `{${n}}`).join(', ')} ` +
        `(allowed: ${allowed}); using "${DEFAULT_HINT_FORMAT}"`,
    );
    format = DEFAULT_HINT_FORMAT;
  } else if (!placeholdersOf(format).includes('value')) {
    problems.push(`perfline.hints.format: "${format}" has no {value}; using "${DEFAULT_HINT_FORMAT}"`);
    format = DEFAULT_HINT_FORMAT;
  }

  let minShare = 0;
  const rawShare = get('hints.minShare');
  if (rawShare !== undefined && rawShare !== null) {
    if (typeof rawShare !== 'number' || !Number.isFinite(rawShare)) {
      problems.push(`perfline.hints.minShare: expected a number, found ${describe(rawShare)}; using 0`);
    } else if (rawShare < 0 || rawShare > 100) {
      minShare = Math.min(100, Math.max(0, rawShare));
      problems.push(`perfline.hints.minShare: ${rawShare} is outside 0-100; using ${minShare}`);
    } else {
      minShare = rawShare;
    }
  }

  const compare = readCompare(get, problems);

  const traceRaw = text('trace.server', 'off');
  let trace: TraceLevel = 'off';
  if ((TRACE_LEVELS as readonly string[]).includes(traceRaw)) {
    trace = traceRaw as TraceLevel;
  } else {
    problems.push(
      `perfline.trace.server: "${traceRaw}" is not one of ${TRACE_LEVELS.join(', ')}; using "off"`,
    );
  }

  const extraArgs: string[] = [];
  const rawArgs = get('server.extraArgs');
  if (rawArgs !== undefined && rawArgs !== null) {
    if (Array.isArray(rawArgs) && rawArgs.every((arg) => typeof arg === 'string')) {
      extraArgs.push(...rawArgs);
    } else {
      problems.push(
        `perfline.server.extraArgs: expected an array of strings, found ${describe(rawArgs)}; ignored`,
      );
    }
  }

  return {
    settings: {
      hints: { metric, format, minShare },
      compare,
      server: { path: text('server.path', ''), python: text('server.python', ''), extraArgs },
      trace,
    },
    problems,
  };
}

/** The `perfline.compare.*` settings; invalid values fall back to the defaults with a problem. */
function readCompare(get: SettingGetter, problems: string[]): CompareSettings {
  const number = (key: keyof CompareSettings, low: number, high: number, open: boolean): number => {
    const fallback = DEFAULT_COMPARE[key] as number;
    const raw = get(`compare.${key}`);
    if (raw === undefined || raw === null) {
      return fallback;
    }
    const inside = typeof raw === 'number' && Number.isFinite(raw) && (open ? raw > low && raw < high : raw >= low && raw <= high);
    if (!inside) {
      const range = open ? `between ${low} and ${high}` : `from ${low} to ${high}`;
      problems.push(`perfline.compare.${key}: expected a number ${range}, found ${describe(raw)}; using ${fallback}`);
      return fallback;
    }
    return raw;
  };
  const regressionThreshold = number('regressionThreshold', 0, 1000, false);
  const level = number('level', 0, 1, true);
  const rawCorrection = get('compare.correction');
  let correction: Correction = DEFAULT_COMPARE.correction;
  if (typeof rawCorrection === 'string' && (CORRECTIONS as readonly string[]).includes(rawCorrection)) {
    correction = rawCorrection as Correction;
  } else if (rawCorrection !== undefined && rawCorrection !== null) {
    problems.push(
      `perfline.compare.correction: expected one of ${CORRECTIONS.join(', ')}, found ${describe(rawCorrection)}; using "holm"`,
    );
  }
  return { regressionThreshold, level, correction, estimateThreshold: number('estimateThreshold', 0, 1000, false) };
}

/** The subset of the settings sent to the server. */
export function serverSettings(settings: PerflineSettings): ServerSettings {
  return { hints: { ...settings.hints }, compare: { ...settings.compare }, trace: { server: settings.trace } };
}

/** Whether a settings change needs the server process to be restarted (launch details changed). */
export function needsRestart(before: PerflineSettings, after: PerflineSettings): boolean {
  return (
    before.server.path !== after.server.path ||
    before.server.python !== after.server.python ||
    before.server.extraArgs.join('\u0000') !== after.server.extraArgs.join('\u0000')
  );
}

/** Whether a settings change must be pushed to the running server. */
export function needsPush(before: PerflineSettings, after: PerflineSettings): boolean {
  return JSON.stringify(serverSettings(before)) !== JSON.stringify(serverSettings(after));
}

function describe(value: unknown): string {
  if (Array.isArray(value)) {
    return 'an array';
  }
  return value === null ? 'null' : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * The answer to a `workspace/configuration` item for a section below `perfline` (e.g. `perfline`
 * or `perfline.hints`), from the normalized settings; `undefined` when it is not ours.
 */
export function configurationFor(section: string | undefined, settings: PerflineSettings): unknown {
  if (section === undefined || (section !== 'perfline' && !section.startsWith('perfline.'))) {
    return undefined;
  }
  let node: unknown = serverSettings(settings);
  for (const key of section.split('.').slice(1)) {
    if (typeof node !== 'object' || node === null || !(key in node)) {
      return null;
    }
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
