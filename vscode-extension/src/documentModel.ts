/**
 * Reads what the extension displays out of a processed standardized document (MLIA schema 1.2.0):
 * results, model-level metrics, breakdowns and entities. Tolerant: malformed pieces are skipped,
 * never thrown on, because the document comes from another process. Pure.
 */

export interface Metric {
  readonly name: string;
  readonly unit: string;
  /** Absent for unavailable metrics. */
  readonly value: number | undefined;
  readonly aggregation: string | undefined;
  readonly qualifiers: Readonly<Record<string, unknown>>;
  readonly reason: string | undefined;
}

export interface Breakdown {
  readonly entityId: string;
  readonly metrics: readonly Metric[];
}

export interface Entity {
  readonly id: string;
  readonly kind: string;
  readonly name: string;
  readonly placement: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface Result {
  readonly kind: string;
  readonly status: string;
  readonly producer: string;
  readonly mode: string | undefined;
  readonly metrics: readonly Metric[];
  readonly breakdowns: readonly Breakdown[];
  readonly entities: readonly Entity[];
}

export interface StandardizedDocument {
  readonly modelName: string | undefined;
  readonly results: readonly Result[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function parseMetric(raw: unknown): Metric | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const name = str(raw.name);
  if (name === undefined) {
    return undefined;
  }
  const value = typeof raw.value === 'number' && Number.isFinite(raw.value) ? raw.value : undefined;
  return {
    name,
    unit: str(raw.unit) ?? '',
    value,
    aggregation: str(raw.aggregation),
    qualifiers: isObject(raw.qualifiers) ? raw.qualifiers : {},
    reason: str(raw.reason),
  };
}

function parseMetrics(raw: unknown): Metric[] {
  return list(raw).flatMap((m) => {
    const metric = parseMetric(m);
    return metric === undefined ? [] : [metric];
  });
}

function parseEntity(raw: unknown): Entity | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const id = str(raw.id);
  if (id === undefined) {
    return undefined;
  }
  return {
    id,
    kind: str(raw.kind) ?? '',
    name: str(raw.name) ?? id,
    placement: str(raw.placement),
    attributes: isObject(raw.attributes) ? raw.attributes : {},
  };
}

function parseResult(raw: unknown): Result | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const breakdowns = list(raw.breakdowns).flatMap((b): Breakdown[] => {
    if (!isObject(b)) {
      return [];
    }
    const entityId = str(b.entity_id);
    return entityId === undefined ? [] : [{ entityId, metrics: parseMetrics(b.metrics) }];
  });
  const entities = list(raw.entities).flatMap((e) => {
    const entity = parseEntity(e);
    return entity === undefined ? [] : [entity];
  });
  return {
    kind: str(raw.kind) ?? '',
    status: str(raw.status) ?? '',
    producer: str(raw.producer) ?? '',
    mode: str(raw.mode),
    metrics: parseMetrics(raw.metrics),
    breakdowns,
    entities,
  };
}

/** Parses a document; also accepts `{document: {...}}` / `{result: {...}}` envelopes. */
export function parseDocument(raw: unknown): StandardizedDocument | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  if (!Array.isArray(raw.results)) {
    for (const key of ['document', 'result']) {
      if (isObject(raw[key])) {
        return parseDocument(raw[key]);
      }
    }
    return undefined;
  }
  const results = raw.results.flatMap((r) => {
    const result = parseResult(r);
    return result === undefined ? [] : [result];
  });
  const model = isObject(raw.model) ? str(raw.model.name) : undefined;
  return { modelName: model, results };
}

/** `name` plus the qualifiers that tell metrics of the same name apart (e.g. `cycles (NPU)`). */
export function metricLabel(metric: Metric): string {
  const parts = Object.entries(metric.qualifiers)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => (k === 'placement' ? String(v) : `${k}=${String(v)}`));
  const unit = metric.unit === '' ? '' : ` [${metric.unit}]`;
  return parts.length === 0 ? `${metric.name}${unit}` : `${metric.name} (${parts.join(', ')})${unit}`;
}

/** Performance results first (ok, then partial), then the others. */
export function performanceResults(doc: StandardizedDocument): Result[] {
  const rank = (r: Result): number =>
    (r.kind === 'performance' ? 0 : 10) + (r.status === 'ok' ? 0 : r.status === 'partial' ? 1 : 2);
  return [...doc.results].sort((a, b) => rank(a) - rank(b));
}

function headlineRank(metric: Metric, preferred: string): number {
  if (preferred !== 'auto' && metric.name === preferred) {
    return 0;
  }
  if (metric.name === 'inference_time' || metric.unit === 'ms') {
    return 1;
  }
  if (metric.name.includes('cycles') || metric.unit === 'cycles') {
    return 2;
  }
  return 3;
}

/**
 * The model-level figures to headline: numeric metrics of the best performance result, the
 * preferred metric first, then time, then cycles, one per unit (so `inference_time` is not
 * followed by its own min/max), at most `count`.
 */
export function modelTotals(doc: StandardizedDocument, preferred: string, count = 2): Metric[] {
  const result = performanceResults(doc).find((r) => r.metrics.some((m) => m.value !== undefined));
  if (result === undefined) {
    return [];
  }
  return result.metrics
    .map((metric, index) => ({ metric, index }))
    .filter(({ metric }) => metric.value !== undefined)
    .sort(
      (a, b) => headlineRank(a.metric, preferred) - headlineRank(b.metric, preferred) || a.index - b.index,
    )
    .map(({ metric }) => metric)
    .filter((metric, i, sorted) => sorted.findIndex((m) => m.unit === metric.unit) === i)
    .slice(0, count);
}

/** A row of a breakdown table: one entity with its metrics keyed by `metricLabel`. */
export interface BreakdownRow {
  readonly entity: Entity;
  readonly values: ReadonlyMap<string, Metric>;
}

function combine(a: Metric, b: Metric): Metric {
  if (a.value !== undefined && b.value !== undefined && a.aggregation === 'sum' && b.aggregation === 'sum') {
    return { ...a, value: a.value + b.value };
  }
  return a;
}

/** Rows for the given entity ids (in that order), merging all breakdowns of each entity. */
export function breakdownRows(doc: StandardizedDocument, entityIds: readonly string[]): BreakdownRow[] {
  const rows: BreakdownRow[] = [];
  for (const id of entityIds) {
    for (const result of performanceResults(doc)) {
      const entity = result.entities.find((e) => e.id === id);
      if (entity === undefined) {
        continue;
      }
      const values = new Map<string, Metric>();
      for (const breakdown of result.breakdowns.filter((b) => b.entityId === id)) {
        for (const metric of breakdown.metrics) {
          const label = metricLabel(metric);
          const previous = values.get(label);
          values.set(label, previous === undefined ? metric : combine(previous, metric));
        }
      }
      rows.push({ entity, values });
      break;
    }
  }
  return rows;
}

function fileOf(entity: Entity): string {
  const file = entity.attributes.file;
  return typeof file === 'string' ? file : '';
}

function lineOf(entity: Entity): number {
  const line = entity.attributes.line;
  return typeof line === 'number' ? line : Number.MAX_SAFE_INTEGER;
}

/** Every `code_line` entity that carries a breakdown, by file then line: the whole-model view. */
export function codeLineIds(doc: StandardizedDocument): string[] {
  const result = performanceResults(doc).find((r) => r.entities.some((e) => e.kind === 'code_line'));
  if (result === undefined) {
    return [];
  }
  const withFigures = new Set(result.breakdowns.map((b) => b.entityId));
  return result.entities
    .filter((e) => e.kind === 'code_line' && withFigures.has(e.id))
    .sort((a, b) => {
      const fa = fileOf(a);
      const fb = fileOf(b);
      return fa === fb ? lineOf(a) - lineOf(b) : fa < fb ? -1 : 1;
    })
    .map((e) => e.id);
}
