// @ts-check
/**
 * Opens the HTML report from file:// in headless Chromium (Debian's, through playwright-core)
 * with the network off, and checks what a reader does with it:
 *   1. the page becomes interactive and shows the expected line's figure (from `perfline annotate
 *      --json`, an independent code path), and that line expands to its operators;
 *   2. a click on a chart node zooms to it (the node then spans the whole chart), the trail above
 *      zooms back out, and hovering shows the node's figures;
 *   3. the operator table sorts by a clicked column, both ways (checked on the rendered cells);
 *   4. no request leaves the page (every request is counted; only the file itself may load).
 *   5. the page formats numbers as perfline's Python does (--formats: [value, unit, text] rows);
 *   6. with --aggregate OTHER.html (a large result): that page opens, and its chart draws fewer
 *      rectangles than it has nodes, folding siblings narrower than a pixel into "+N" blocks.
 * Screenshots go to --shots. Exit code 0 only if every check passed.
 * With --measure it only opens the page and prints {"readyAt": ms, "wall": ms} as JSON (the
 * benchmark's time to interactive).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    html: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    expected: { type: 'string' },
    file: { type: 'string', default: 'dscnn.py' },
    line: { type: 'string', default: '26' },
    zoom: { type: 'string', default: 'blocks' },
    shots: { type: 'string' },
    measure: { type: 'boolean', default: false },
    formats: { type: 'string' },
    aggregate: { type: 'string' },
    timeout: { type: 'string', default: '60000' },
  },
});
if (!args.html) {
  throw new Error('--html is required');
}
const timeout = Number(args.timeout);
const url = pathToFileURL(args.html).href;

// The flags this machine needs (no sandbox as root, no GPU, no background network).
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage',
];
const profile = mkdtempSync(join(tmpdir(), 'perfline-html-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: args.chromium,
  headless: true,
  args: FLAGS,
  offline: true,
  viewport: { width: 1400, height: 1000 },
});
/** Every request the page makes, the file itself included. */
const requests = [];
context.on('request', (request) => requests.push(request.url()));
// Anything but the file itself is refused (the count above still sees it).
await context.route((u) => u.protocol !== 'file:', (route) => route.abort());

const results = [];
const check = (name, ok, detail) => {
  results.push({ name, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`);
};

const finish = async (code) => {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(code);
};

const page = context.pages()[0] ?? (await context.newPage());
const errors = [];
page.on('pageerror', (error) => errors.push(String(error)));
page.on('console', (message) => {
  if (message.type() === 'error') {
    errors.push(message.text());
  }
});

const started = Date.now();
await page.goto(url, { waitUntil: 'load', timeout });
await page.waitForSelector('html[data-ready="1"]', { timeout });
const wall = Date.now() - started;
const readyAt = await page.evaluate(() => window.perflineReport.readyAt);

if (args.measure) {
  console.log(JSON.stringify({ readyAt, wall, errors, requests: requests.length }));
  await finish(errors.length ? 1 : 0);
}

const shots = args.shots;
if (!shots || !args.expected) {
  throw new Error('--shots and --expected are required (or --measure)');
}
const shot = async (name, options = {}) => {
  await page.screenshot({ path: join(shots, `${name}.png`), ...options });
  console.log(`screenshot ${name}.png`);
};

check('interactive', readyAt !== null, `ready ${readyAt.toFixed(0)} ms after navigation start`);

// 1. The line's figure, as `perfline annotate --json` labels it.
const annotations = JSON.parse(readFileSync(args.expected, 'utf8'));
const lineNo = Number(args.line);
const expected = annotations.lines.find((l) => (l.currentLine ?? l.line) === lineNo);
const expectedLabel = expected?.label ?? null;
const line = page.locator(
  `details.file[data-file="${args.file}"] .ln[data-line="${lineNo}"]`,
);
const shown = (await line.count()) ? (await line.locator('.fig').textContent())?.trim() : null;
const visible = (await line.count()) ? await line.isVisible() : false;
check(
  `line ${lineNo} figure`,
  expectedLabel !== null && shown === expectedLabel && visible,
  `page shows ${JSON.stringify(shown)}, perfline annotate says ${JSON.stringify(expectedLabel)}`,
);
await line.scrollIntoViewIfNeeded();
await shot('report-top', { fullPage: false, clip: undefined });
await line.click();
const ops = page.locator(
  `details.file[data-file="${args.file}"] .ln[data-line="${lineNo}"] + .ops td.mono`,
);
const opNames = (await ops.allTextContents()).filter((t) => t && !t.includes(','));
const expectedOps = (expected?.entities ?? [])
  .filter((e) => e.kind === 'source_operator')
  .map((e) => e.name);
check(
  `line ${lineNo} expands to its operators`,
  opNames.length > 0,
  `operators listed: ${opNames.join(', ')}` +
    (expectedOps.length ? ` (annotate lists ${expectedOps.join(', ')})` : ''),
);
await line.evaluate((el) => el.scrollIntoView({ block: 'center' }));
await shot('source-line-expanded');

// 2. The chart: zoom on click, trail back out, hover for figures.
const chart = page.locator('#chart');
await chart.scrollIntoViewIfNeeded();
await shot('chart');
const target = await page.evaluate((label) => {
  const c = window.perflineReport.chart;
  const node = c.find(label);
  return { node, rect: node >= 0 ? c.rect(node) : null, width: c.width() };
}, args.zoom);
if (target.rect === null) {
  check('chart zoom', false, `no drawn node labelled ${args.zoom}`);
} else {
  const x = target.rect.x + Math.min(target.rect.width / 2, 40);
  const y = target.rect.y + target.rect.height / 2;
  await page.mouse.move(x, y);
  const tip = page.locator('#tip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const tipText = (await tip.textContent()) ?? '';
  check('chart hover', tipText.includes(args.zoom) && /figure|drawn as/.test(tipText),
    `tooltip: ${JSON.stringify(tipText.slice(0, 160))}`);
  await shot('chart-hover');
  const before = target.rect.width;
  await page.mouse.click(x, y);
  const after = await page.evaluate((node) => {
    const c = window.perflineReport.chart;
    return { focus: c.focus(), rect: c.rect(node), width: c.width(),
      attr: document.getElementById('chart').getAttribute('data-focus') };
  }, target.node);
  check(
    'chart zooms on click',
    after.focus.index === target.node && after.attr === args.zoom && after.rect !== null &&
      Math.abs(after.rect.width - after.width) < 1 && before < after.width,
    `focus ${JSON.stringify(after.focus.label)}, node width ${before.toFixed(0)} px -> ` +
      `${after.rect ? after.rect.width.toFixed(0) : 'not drawn'} px of ${after.width} px`,
  );
  await page.mouse.move(5, 5);
  await shot('chart-zoomed');
  await page.locator('#crumbs a').first().click();
  const out = await page.evaluate(() => window.perflineReport.chart.focus());
  check('chart zooms out from the trail', out.index === 0, `focus ${JSON.stringify(out.label)}`);
}

// 3. The table sorts (checked on what is rendered).
const head = page.locator('#op-head');
const columnTexts = async (col) =>
  page.$$eval(`#op-body tr td:nth-child(${col})`, (cells) => cells.map((c) => c.textContent));
const sortedBy = async (thText) => {
  await head.locator('th', { hasText: thText }).first().click();
  return head.locator('th', { hasText: thText }).first().getAttribute('aria-sort');
};
const byName = (a, b) => a.localeCompare(b, 'en', { numeric: true });
let sortState = await sortedBy('Operator');
let names = await columnTexts(1);
check('table sorts by name (ascending)',
  sortState === 'ascending' && names.length > 1 &&
    names.every((n, i) => i === 0 || byName(names[i - 1], n) <= 0),
  `aria-sort=${sortState}, first rows ${names.slice(0, 4).join(', ')}`);
sortState = await sortedBy('Operator');
names = await columnTexts(1);
check('table sorts by name (descending)',
  sortState === 'descending' && names.every((n, i) => i === 0 || byName(names[i - 1], n) >= 0),
  `aria-sort=${sortState}, first rows ${names.slice(0, 4).join(', ')}`);
const metricName = await page.evaluate(() => {
  const v = window.perflineReport && document.querySelector('#op-head th.num');
  return v ? v.firstChild.textContent.trim() : null;
});
sortState = await sortedBy(metricName);
const metricCol = await page.evaluate(() => {
  const ths = [...document.querySelectorAll('#op-head th')];
  return ths.findIndex((th) => th.classList.contains('num')) + 1;
});
const numbers = async () => {
  const texts = await columnTexts(metricCol);
  const rows = await page.$$eval('#op-body tr', (trs) => trs.map((tr) => tr.rowIndex));
  return { texts, count: rows.length };
};
let column = await numbers();
// The values behind the cells, in display order (the cells are rounded for reading).
const values = await page.evaluate(() => {
  const rep = window.perflineReport, state = rep.table.state();
  return { state, column: state.column };
});
const parse = (t) => (t === '\u2014' ? null : Number(t.replace(/[^0-9.eE+-]/g, '')) *
  (/k$/.test(t) ? 1e3 : /M$/.test(t) ? 1e6 : /G$/.test(t) ? 1e9 : 1));
let parsed = column.texts.map(parse).filter((v) => v !== null);
check(`table sorts by ${metricName} (descending)`,
  sortState === 'descending' && parsed.length > 1 &&
    parsed.every((v, i) => i === 0 || parsed[i - 1] >= v),
  `aria-sort=${sortState}, first values ${column.texts.slice(0, 4).join(', ')} (column ${values.column})`);
sortState = await sortedBy(metricName);
column = await numbers();
parsed = column.texts.map(parse).filter((v) => v !== null);
check(`table sorts by ${metricName} (ascending)`,
  sortState === 'ascending' && parsed.every((v, i) => i === 0 || parsed[i - 1] <= v),
  `aria-sort=${sortState}, first values ${column.texts.slice(0, 4).join(', ')}`);
await page.locator('#op-table').scrollIntoViewIfNeeded();
await shot('table-sorted');

// 5. Numbers read as in Python.
if (args.formats) {
  const rows = JSON.parse(readFileSync(args.formats, 'utf8'));
  const got = await page.evaluate((r) => r.map(([v, u]) => window.perflineReport.format(v, u)), rows);
  const wrong = rows.filter((r, i) => got[i] !== r[2]).map((r, i) => `${r[0]} ${r[1]}: ${got[i]} != ${r[2]}`);
  check('numbers formatted as in Python', wrong.length === 0,
    wrong.length ? wrong.join('; ') : `${rows.length} values`);
}

// 4. Nothing left the page.
const others = requests.filter((r) => r !== url);
check('no request leaves the page', others.length === 0,
  `${requests.length} request(s): ${requests.map((r) => r.slice(0, 80)).join(' ')}`);
check('no script errors', errors.length === 0, errors.join(' | ') || 'none');

await shot('report-full', { fullPage: true });

// 6. A large result still opens; its chart folds what is narrower than a pixel.
if (args.aggregate) {
  const bigUrl = pathToFileURL(args.aggregate).href;
  const t0 = Date.now();
  await page.goto(bigUrl, { waitUntil: 'load', timeout });
  await page.waitForSelector('html[data-ready="1"]', { timeout });
  const big = await page.evaluate(() => {
    const c = window.perflineReport.chart;
    return { nodes: c.nodes, drawn: c.drawn(), folded: c.aggregated(),
      readyAt: window.perflineReport.readyAt };
  });
  check('a large result opens and folds sub-pixel siblings',
    big.drawn < big.nodes && big.folded > 0,
    `${big.nodes} chart nodes, ${big.drawn} rectangles drawn, ${big.folded} "+N" blocks, ` +
      `interactive after ${big.readyAt.toFixed(0)} ms (${Date.now() - t0} ms wall)`);
  await page.locator('#chart').scrollIntoViewIfNeeded();
  await shot('large-result-chart');
  const bigOthers = requests.filter((r) => r !== url && r !== bigUrl);
  check('no request leaves the large page', bigOthers.length === 0, `${bigOthers.length} others`);
  check('no script errors on the large page', errors.length === 0, errors.join(' | ') || 'none');
}
const failed = results.filter((r) => !r.ok);
console.log(`${results.length - failed.length}/${results.length} checks passed`);
await finish(failed.length ? 1 : 0);
