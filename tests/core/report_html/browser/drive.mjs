// @ts-check
/**
 * Opens the HTML report from file:// in headless Chromium (Debian's, through playwright-core)
 * with the network off, and checks what a reader does with it:
 *   1. the page becomes interactive and shows the expected line's figure (from `perfline annotate
 *      --json`, an independent code path), and that line expands to its operators; with
 *      --call-line N --calls TEXT, line N shows annotate's figure and "(calls TEXT)";
 *   2. a click on a chart node zooms to it (the node then spans the whole chart), the trail above
 *      zooms back out, and hovering shows the node's figures;
 *   3. the operator table sorts by a clicked column, both ways (checked on the rendered cells);
 *   4. no request leaves the page (every request is counted; only the file itself may load).
 *   5. the page writes numbers as perfline's Python does (--formats: each operator's figure and
 *      share as core/figure_text writes the values of the page data): it formats none itself;
 *   6. with --aggregate OTHER.html (a large result): that page opens, and its chart draws fewer
 *      rectangles than it has nodes, folding siblings narrower than a pixel into "+N" blocks;
 *   7. with --compare PAGE.html (the compare view) and --compare-json (`perfline compare --json`
 *      of the same runs: the expected verdicts): the --regressed line is coloured as regressed
 *      in the source (its bar and delta cell), in the chart (the pixels of its node) and in the
 *      table (sorted by change, the operators under it first), the --noise line (a change the
 *      comparison judged noise) carries no change colour anywhere, the --call-line (which holds the
 *      regressed line; its change counted there) is uncoloured with an "inclusive" note, the
 *      compare section tallies (▲/▼ the direction of the value: the rate that fell is ▼),
 *      the lines and its link shows the regressed line, and no request leaves the page;
 *   8. with --changes PAGE.html (a compare view of runs whose entities differ) and --changes-json:
 *      the entities only the new run has are listed, as many as `perfline compare --json` counts.
 *   0. (first) the hot source lines come before the summary, and the summary cards' value cells
 *      are wide enough (at least 40% of the card, at most four lines high).
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
    'call-line': { type: 'string' },
    calls: { type: 'string' },
    zoom: { type: 'string', default: 'blocks' },
    shots: { type: 'string' },
    measure: { type: 'boolean', default: false },
    formats: { type: 'string' },
    aggregate: { type: 'string' },
    compare: { type: 'string' },
    'compare-json': { type: 'string' },
    regressed: { type: 'string', default: '26' },
    noise: { type: 'string', default: '40' },
    changes: { type: 'string' },
    'changes-json': { type: 'string' },
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

// 0. The layout: the hot source lines come before the run's metadata (the summary), and each
// summary card gives its values room: a value cell is at least 40% of its card's width and at
// most four lines high (a long backend id once squeezed the Backends card's values to one
// character per line).
const layout = await page.evaluate(() => {
  const top = (id) => document.getElementById(id).getBoundingClientRect().top;
  const cards = [...document.querySelectorAll('#summary .card')].map((card) => {
    const tds = [...card.querySelectorAll('td')];
    const cells = tds.map((td) => td.getBoundingClientRect());
    // a cell's lines: its content's height (the row's height is the taller cell's) by its
    // line height
    const lines = tds.map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return Math.round(range.getBoundingClientRect().height / parseFloat(getComputedStyle(td).lineHeight));
    });
    return {
      title: card.querySelector('h3').textContent,
      width: Math.round(card.getBoundingClientRect().width),
      narrowest: Math.round(Math.min(...cells.map((c) => c.width))),
      lines: Math.max(...lines),
    };
  });
  return { sources: top('sources'), summary: top('summary'), cards };
});
check(
  'hot source lines before the summary',
  layout.sources < layout.summary,
  `Source at ${Math.round(layout.sources)} px, Summary at ${Math.round(layout.summary)} px`,
);
check(
  'summary cards give their values room',
  layout.cards.some((c) => c.title === 'Backends') &&
    layout.cards.every((c) => c.narrowest >= 0.4 * c.width && c.lines <= 4),
  layout.cards.map((c) => `${c.title}: ${c.narrowest}/${c.width} px, ${c.lines} line(s)`).join('; '),
);

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
check(
  `line ${lineNo} is not a call line`,
  (await line.locator('.calls').count()) === 0,
  'no "(calls ...)" marker',
);

// 1b. A call line (--call-line N --calls TEXT): annotate's figure, marked inclusive.
if (args['call-line']) {
  const callNo = Number(args['call-line']);
  const callExpected = annotations.lines.find((l) => (l.currentLine ?? l.line) === callNo);
  const callLine = page.locator(
    `details.file[data-file="${args.file}"] .ln[data-line="${callNo}"]`,
  );
  const callFigure = (await callLine.locator('.fig').textContent())?.trim() ?? null;
  const marker = (await callLine.locator('.calls').count())
    ? (await callLine.locator('.calls').textContent())?.trim()
    : null;
  check(
    `call line ${callNo} figure, marked inclusive`,
    callExpected?.label != null &&
      callFigure === callExpected.label &&
      marker === `(calls ${args.calls})` &&
      (await callLine.locator('.calls').isVisible()),
    `page shows ${JSON.stringify(callFigure)} ${JSON.stringify(marker)}, perfline annotate ` +
      `says ${JSON.stringify(callExpected?.label ?? null)}, calls ${args.calls}`,
  );
}
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

// 5. Numbers read as Python writes them: the page formats none itself, every cell is
// core/figure_text's text (--formats: operator -> [its figure, its share] as figure_text
// writes the values the page data holds).
if (args.formats) {
  const expectedCells = JSON.parse(readFileSync(args.formats, 'utf8'));
  const shownCells = await page.$$eval('#op-body tr', (trs, col) => trs.map((tr) => {
    const tds = tr.querySelectorAll('td');
    return [tds[0].textContent, tds[col - 1].textContent, tds[col].textContent];
  }), metricCol);
  const wrong = shownCells.filter(([name, figure, share]) =>
    !expectedCells[name] || expectedCells[name][0] !== figure || expectedCells[name][1] !== share);
  check('numbers written as core/figure_text writes them',
    shownCells.length === Object.keys(expectedCells).length && wrong.length === 0 &&
      (await page.evaluate(() => !('format' in window.perflineReport))),
    wrong.length ? wrong.slice(0, 5).map((w) => w.join(' ')).join('; ') :
      `${shownCells.length} operators' figures and shares, e.g. ${shownCells[0]?.join(' ')}`);
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
// 7. The compare view.
if (args.compare) {
  const compareUrl = pathToFileURL(args.compare).href;
  const before = requests.length;
  await page.goto(compareUrl, { waitUntil: 'load', timeout });
  await page.waitForSelector('html[data-ready="1"]', { timeout });
  const expectedCompare = JSON.parse(readFileSync(args['compare-json'], 'utf8'));
  const verdictOf = (no) => {
    for (const result of expectedCompare.results) {
      for (const e of result.entities) {
        if (e.kind === 'code_line' && e.new_line === no) {
          return e.metrics.find((m) => m.name === 'duration_avg') ?? null;
        }
      }
    }
    return null;
  };
  const bad = Number(args.regressed), calm = Number(args.noise);
  const want = { bad: verdictOf(bad), calm: verdictOf(calm) };
  // ▲ / ▼ are the direction of the value, as in the CLI and the editor (docs/results.md): the
  // regressed line's time went up (▲), the model's inferences/s went down (▼, a regression).
  const marks = await page.evaluate(([file, n]) => {
    const row = [...document.querySelectorAll('#compare-body table.metrics tr')].find(
      (tr) => tr.querySelector('td')?.textContent === 'inferences_per_second');
    const ln = document.querySelector(`details.file[data-file="${file}"] .ln[data-line="${n}"]`);
    return {
      rate: row ? row.querySelectorAll('td')[3].textContent : null,
      rateVerdict: row ? row.querySelectorAll('td')[4].textContent : null,
      line: ln ? ln.querySelector('.delta').textContent : null,
    };
  }, [args.file, bad]);
  check('compare: ▲/▼ mark the direction of the value',
    (marks.rate ?? '').startsWith('\u25bc') && (marks.rateVerdict ?? '').startsWith('regressed') &&
      (marks.line ?? '').startsWith('\u25b2'),
    `inferences_per_second ${JSON.stringify(marks.rate)} (${marks.rateVerdict}), ` +
      `line ${bad} ${JSON.stringify(marks.line)}`);
  check('compare: the expected verdicts (perfline compare --json)',
    want.bad?.verdict === 'regression' && want.bad.significant &&
      want.calm?.verdict === 'noise' && !want.calm.significant && want.calm.delta !== 0,
    `line ${bad}: ${want.bad?.verdict} (p ${want.bad?.p_adjusted}), line ${calm}: ` +
      `${want.calm?.verdict} (delta ${want.calm?.delta}, p ${want.calm?.p_adjusted})`);
  /** A source line's classes, delta text and the delta cell's colours as the browser computes them. */
  const lineLook = (no) => page.evaluate(([file, n]) => {
    const ln = document.querySelector(`details.file[data-file="${file}"] .ln[data-line="${n}"]`);
    if (!ln) { return null; }
    const delta = ln.querySelector('.delta');
    const style = getComputedStyle(delta);
    return { classes: [...ln.classList], text: delta.textContent, background: style.backgroundColor,
      colour: style.color, bar: getComputedStyle(ln).boxShadow };
  }, [args.file, no]);
  const rgba = (text) => (/rgba?\(([^)]+)\)/.exec(text ?? '')?.[1].split(',').map(Number)) ?? [0, 0, 0, 0];
  const reddish = (text) => { const [r, g, b, a = 1] = rgba(text); return a > 0 && r > 150 && r > 2 * g && r > 2 * b; };
  const transparent = (text) => { const c = rgba(text); return c.length === 4 && c[3] === 0; };
  const badLine = await lineLook(bad);
  const calmLine = await lineLook(calm);
  check(`compare: line ${bad} coloured as regressed`,
    badLine !== null && badLine.classes.includes('sig-regressed') && reddish(badLine.background) &&
      reddish(badLine.bar) && badLine.text.startsWith('\u25b2 +'),
    `classes ${badLine?.classes.join(' ')}, delta "${badLine?.text}", background ${badLine?.background}, bar ${badLine?.bar}`);
  check(`compare: line ${calm} (noise) not coloured`,
    calmLine !== null && calmLine.classes.includes('sig-unchanged') && transparent(calmLine.background) &&
      calmLine.bar === 'none' && calmLine.text.startsWith('~ ') && !reddish(calmLine.colour),
    `classes ${calmLine?.classes.join(' ')}, delta "${calmLine?.text}", background ${calmLine?.background}, bar ${calmLine?.bar}`);
  if (args['call-line']) {
    // The call line holds the regressed line: its change is as real, and counted there, so it is
    // shown uncoloured with an "inclusive" note (perfline compare --json: explained_by_calls).
    const callNo = Number(args['call-line']);
    const wantCall = verdictOf(callNo);
    const callLine = await lineLook(callNo);
    const title = await page.locator(`details.file[data-file="${args.file}"] .ln[data-line="${callNo}"] .delta`)
      .getAttribute('title');
    check(`compare: call line ${callNo}'s change counted on the lines it calls`,
      wantCall?.significant === true && wantCall.explained_by_calls === true && wantCall.verdict === 'regression' &&
        callLine !== null && callLine.classes.includes('sig-unchanged') && transparent(callLine.background) &&
        callLine.bar === 'none' && callLine.text.startsWith('~ +') && !reddish(callLine.colour) &&
        (title ?? '').includes('inclusive: the lines this line calls account for the change'),
      `perfline compare --json: ${wantCall?.verdict} (significant ${wantCall?.significant}, explained_by_calls ` +
        `${wantCall?.explained_by_calls}); classes ${callLine?.classes.join(' ')}, delta "${callLine?.text}" ` +
        `title "${title}", background ${callLine?.background}, bar ${callLine?.bar}`);
  }
  await page.locator(`details.file[data-file="${args.file}"] .ln[data-line="${bad}"]`).evaluate(
    (el) => el.scrollIntoView({ block: 'center' }));
  await shot('compare-source');
  // The chart: the pixels of each line's node.
  const pixels = await page.evaluate(([a, b]) => {
    const c = window.perflineReport.chart, canvas = document.getElementById('chart');
    const box = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    const ctx = canvas.getContext('2d');
    const at = (label) => {
      const node = c.find(label), r = node >= 0 ? c.rect(node) : null;
      if (!r) { return null; }
      const x = Math.round((r.x - box.left + 2) * dpr), y = Math.round((r.y - box.top + 3) * dpr);
      return { change: c.change(node), rgb: [...ctx.getImageData(x, y, 1, 1).data].slice(0, 3) };
    };
    const root = getComputedStyle(document.documentElement);
    return { mode: c.colourBy(), bad: at(a), calm: at(b),
      regressed: root.getPropertyValue('--sig-regressed').trim(),
      unchanged: root.getPropertyValue('--sig-unchanged').trim() };
  }, [`${args.file}:${bad}`, `${args.file}:${calm}`]);
  const hex = (rgb) => rgb ? '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('') : null;
  check('compare: chart coloured by change',
    pixels.mode === 'change' && pixels.bad?.change === 'regressed' && hex(pixels.bad.rgb) === pixels.regressed &&
      pixels.calm?.change === 'unchanged' && hex(pixels.calm.rgb) === pixels.unchanged,
    `line ${bad} node ${hex(pixels.bad?.rgb)} (${pixels.bad?.change}; regressed is ${pixels.regressed}), ` +
      `line ${calm} node ${hex(pixels.calm?.rgb)} (${pixels.calm?.change}; unchanged is ${pixels.unchanged})`);
  await page.locator('#chart').scrollIntoViewIfNeeded();
  const node = await page.evaluate((label) => {
    const c = window.perflineReport.chart;
    return c.rect(c.find(label));
  }, `${args.file}:${bad}`);
  if (node) {
    await page.mouse.move(node.x + 20, node.y + node.height / 2);
    const tip = page.locator('#tip');
    await tip.waitFor({ state: 'visible', timeout: 5000 });
    const tipText = (await tip.textContent()) ?? '';
    check('compare: chart tooltip has the change', /change.*\u25b2 \+.*baseline.*regressed/.test(tipText),
      JSON.stringify(tipText.slice(0, 200)));
  }
  await shot('compare-chart');
  await page.mouse.move(5, 5);
  // The table sorted by change: the operators under the regressed line first, coloured.
  await page.locator('#op-head th', { hasText: /^change$/ }).first().click();
  const top = await page.$$eval('#op-body tr', (trs) => trs.slice(0, 6).map((tr) => {
    const cells = [...tr.querySelectorAll('td')];
    const change = cells.find((td) => /sig-/.test(td.className));
    return { line: cells[3]?.textContent, cls: change?.className ?? '', text: change?.textContent ?? '' };
  }));
  const underBad = top.filter((r) => r.line === `${args.file}:${bad}`);
  check('compare: table sorted by change',
    top.length >= 4 && top.slice(0, 4).every((r) => r.line === `${args.file}:${bad}` && /sig-regressed/.test(r.cls)) &&
      !top.slice(4).some((r) => /sig-regressed|sig-improved/.test(r.cls) && r.line === `${args.file}:${calm}`),
    `first rows: ${top.map((r) => `${r.line} ${r.text} [${r.cls}]`).join('; ')} (${underBad.length} under line ${bad})`);
  await page.locator('#op-table').scrollIntoViewIfNeeded();
  await shot('compare-table');
  // The compare section: tally and the link to the regressed line.
  const tally = (await page.locator('#compare-tally').textContent()) ?? '';
  const links = await page.locator('#compare-lines a').allTextContents();
  check('compare: section tallies the lines',
    /\b1 regressed\b/.test(tally) && links.length === 1 && links[0] === `${args.file}:${bad}`,
    `tally "${tally}", links ${JSON.stringify(links)}`);
  await page.locator('#compare').scrollIntoViewIfNeeded();
  await shot('compare-section');
  await page.locator('#compare-lines a').first().click();
  const targeted = await page.evaluate(() => document.querySelector('.ln.target')?.getAttribute('data-line'));
  check('compare: the link shows the line', targeted === String(bad), `target line ${targeted}`);
  const compareOthers = requests.slice(before).filter((r) => r !== compareUrl);
  check('no request leaves the compare page', compareOthers.length === 0, `${compareOthers.length} others`);
  check('no script errors on the compare page', errors.length === 0, errors.join(' | ') || 'none');
  await shot('compare-full', { fullPage: true });
}

// 8. Entities only one run has.
if (args.changes) {
  const changesUrl = pathToFileURL(args.changes).href;
  const before = requests.length;
  await page.goto(changesUrl, { waitUntil: 'load', timeout });
  await page.waitForSelector('html[data-ready="1"]', { timeout });
  const json = JSON.parse(readFileSync(args['changes-json'], 'utf8'));
  const added = json.results.flatMap((r) => r.entities).filter((e) => e.status === 'added');
  const lines = added.filter((e) => e.kind === 'code_line').map((e) => `${e.file.split('/').pop()}:${e.new_line}`);
  await page.locator('#compare-added summary').click();
  const listed = await page.$$eval('#compare-added tbody tr', (trs) => trs.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const summary = (await page.locator('#compare-added summary').textContent()) ?? '';
  const shownLines = listed.filter((r) => r[0] === 'code_line').map((r) => r[2]);
  check('compare: entities only in the new run listed',
    added.length > 0 && summary.includes(`(${added.length})`) && listed.length === Math.min(added.length, 200) &&
      lines.every((l) => shownLines.includes(l)),
    `perfline compare --json: ${added.length} added (${lines.length} code lines: ${lines.join(', ')}); ` +
      `page: "${summary}", ${listed.length} rows, code lines ${shownLines.join(', ')}`);
  await page.locator('#compare').scrollIntoViewIfNeeded();
  await shot('compare-added');
  const changesOthers = requests.slice(before).filter((r) => r !== changesUrl);
  check('no request leaves the changes page', changesOthers.length === 0 && errors.length === 0,
    `${changesOthers.length} others, errors: ${errors.join(' | ') || 'none'}`);
}

const failed = results.filter((r) => !r.ok);
console.log(`${results.length - failed.length}/${results.length} checks passed`);
await finish(failed.length ? 1 : 0);
