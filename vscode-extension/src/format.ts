/**
 * Number and text formatting shared by the status bar and the breakdown tables: compact values
 * with units (`1.8k cycles`, `0.42 ms`, `12.5 KiB`, `13%`) and Markdown table cells. Pure.
 */

const SI_PREFIXES: readonly [number, string][] = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

const BINARY_PREFIXES: readonly [number, string][] = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** At most `digits` significant digits, without trailing zeros (`0.4213` -> `0.421`). */
export function significant(value: number, digits = 3): string {
  if (value === 0 || !Number.isFinite(value)) {
    return String(value);
  }
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return String(Number(value.toFixed(Math.min(decimals, 12))));
}

/** A value with its unit, compacted for display. */
export function formatValue(value: number, unit: string): string {
  const u = unit.trim();
  if (u === '%' || u === 'percent') {
    return `${significant(value, 3)}%`;
  }
  if (u === 'bytes' || u === 'B') {
    for (const [scale, name] of BINARY_PREFIXES) {
      if (Math.abs(value) >= scale) {
        return `${significant(value / scale, 3)} ${name}`;
      }
    }
    return `${significant(value, 3)} B`;
  }
  if (u === 'ms' || u === 's' || u === 'us' || u === 'ns') {
    return `${significant(value, 3)} ${u}`;
  }
  let text = significant(value, 3);
  for (const [scale, prefix] of SI_PREFIXES) {
    if (Math.abs(value) >= scale) {
      text = `${significant(value / scale, 2)}${prefix}`;
      break;
    }
  }
  return u === '' ? text : `${text} ${u}`;
}

/** A share in 0..1 or 0..100 (as given by `isFraction`) as a whole-percent string. */
export function formatShare(share: number, isFraction = true): string {
  const percent = isFraction ? share * 100 : share;
  if (percent > 0 && percent < 1) {
    return '<1%';
  }
  return `${Math.round(percent)}%`;
}

/** Escapes a Markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A Markdown table; every row must have as many cells as the header. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${header.map((_, i) => cell(row[i] ?? '')).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** A file-name-safe form of an id (job ids go into virtual document paths). */
export function fileSafe(text: string): string {
  const cleaned = text.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned === '' ? 'job' : cleaned;
}
