// @ts-check
/**
 * Drives code-server (a real VS Code) in headless Chromium with playwright-core and checks what
 * the perfline extension shows for one source file of the example workspace. Expected values come
 * from `perfline annotate` (--json for the line labels, the text form for the code lens titles).
 * Every check is reported; the exit code is 1 if any failed. Screenshots go to --shots.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    file: { type: 'string' },
    expected: { type: 'string' },
    'expected-text': { type: 'string' },
    shots: { type: 'string' },
    settings: { type: 'string' },
    'server-parent': { type: 'string' },
    logs: { type: 'string' },
    workspace: { type: 'string' },
    compare: { type: 'string' },
    rerun: { type: 'string' },
    'expected-compare': { type: 'string' },
    timeout: { type: 'string', default: '120000' },
  },
});
const need = (name) => {
  const value = args[name];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`--${name} is required`);
  }
  return value;
};
const url = need('url');
const fileName = need('file');
const shots = need('shots');
const settingsPath = need('settings');
const serverParent = Number(need('server-parent'));
const logsDir = need('logs');
const workspace = need('workspace');

// The perfline output channel as VS Code saved it: <logs>/<session>/exthost1/output_logging_<time>/<n>-perfline.log
const perflineLog = () => {
  const files = execFileSync('find', [logsDir, '-name', '*-perfline.log'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
};
const generations = () => [...perflineLog().matchAll(/result changed: result \S+ generation (\d+)/g)].map((m) => Number(m[1]));

/** Pids of `perfline serve --stdio` processes below `root` (the code-server this run started). */
const serverPids = (root) => {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of rows) {
      if (below.has(row.ppid) && !below.has(row.pid)) {
        below.add(row.pid);
        grew = true;
      }
    }
  }
  return rows.filter((r) => below.has(r.pid) && /-m perfline serve --stdio/.test(r.args)).map((r) => r.pid);
};
const timeout = Number(args.timeout);

/** Lines with a hint label in `perfline annotate --json`, 1-based. */
const expected = JSON.parse(readFileSync(need('expected'), 'utf8'));
const labelled = expected.lines.filter((l) => typeof l.label === 'string' && l.label !== '');
if (labelled.length === 0) {
  throw new Error('perfline annotate produced no labelled lines: nothing to check');
}
const shareOf = (label) => {
  const match = /(<?)(\d+(?:\.\d+)?)%/.exec(label);
  return match ? Number(match[2]) - (match[1] ? 0.5 : 0) : -1;
};
const dominant = [...labelled].sort((a, b) => shareOf(b.label) - shareOf(a.label))[0];
/** A change `perfline compare --json` counts on its line: significant, and not a call line's
 * change that the lines it calls account for (`explained_by_calls`: counted on those lines). */
const counted = (metric) => Boolean(metric?.significant) && !metric?.explained_by_calls;
/** The share marker the server puts in front of a line's hint (VS Code's default format). */
const markerOf = (line) => {
  const share = Math.max(...line.entities.map((e) => (typeof e.share === 'number' ? e.share : 0)));
  return '▮'.repeat([0.05, 0.2, 0.5].filter((t) => share >= t).length);
};
const expectedHint = (line) => (markerOf(line) === '' ? line.label : `${markerOf(line)} ${line.label}`);
/** A line with every statistic (a single operator measured over the runs): the pooling. */
const statsLine = expected.lines.find((l) => (l.entities ?? []).some((e) => e.statistic === 'avg') && l.label && l.line === 42);
/** Code lens titles in the text form: lines like `   │ ▸ nn.Module DSBlock: 10.8 ms · 90% of the model`. */
const lensTitles = readFileSync(need('expected-text'), 'utf8')
  .split('\n')
  .map((line) => /│\s*▸\s*(.+?)\s*$/.exec(line)?.[1])
  .filter((title) => title !== undefined);

/** @type {{name: string, ok: boolean, detail: string}[]} */
const results = [];
const check = (name, ok, detail) => {
  results.push({ name, ok, detail });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`);
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value or the time is up; returns the last value. */
async function until(probe, ms = timeout, every = 500) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await probe();
    if (last) {
      return last;
    }
    await sleep(every);
  }
  return last;
}

const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1300 } });
/** The first frame (a webview's, within a minute) where `inPage`, run inside it, is true. */
const frameWhere = (inPage) =>
  until(async () => {
    for (const frame of page.frames()) {
      if (await frame.evaluate(inPage).catch(() => false)) {
        return frame;
      }
    }
    return undefined;
  }, 60_000);
const shot = async (name) => {
  await page.screenshot({ path: join(shots, `${name}.png`) });
  console.log(`screenshot ${name}.png`);
};

/** `{line -> text}` of the active editor, joining view lines with the line-number gutter by `top`. */
const editorLines = () =>
  page.evaluate(() => {
    const editors = [...document.querySelectorAll('.editor-group-container.active .monaco-editor')];
    const editor = editors.find((e) => e.querySelector('.view-lines')) ?? document.querySelector('.monaco-editor');
    if (!editor) {
      return {};
    }
    const numbers = new Map();
    for (const el of editor.querySelectorAll('.margin-view-overlays .line-numbers')) {
      const holder = el.parentElement;
      const top = holder ? parseFloat(holder.style.top) : NaN;
      numbers.set(top, Number((el.textContent ?? '').trim()));
    }
    const out = {};
    for (const el of editor.querySelectorAll('.view-lines .view-line')) {
      const line = numbers.get(parseFloat(el.style.top));
      if (line !== undefined) {
        out[line] = (el.textContent ?? '').replace(/\u00a0/g, ' ');
      }
    }
    return out;
  });

const runCommand = async (title) => {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
};

let exitCode = 0;
try {
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout });
  await page.waitForSelector('.monaco-workbench', { timeout });
  await sleep(3000);

  // Open the model source with Quick Open.
  const openFile = async () => {
    await page.keyboard.press('Control+P');
    const quick = page.locator('.quick-input-widget input');
    await quick.waitFor({ state: 'visible', timeout: 15_000 });
    await quick.fill(fileName);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: fileName }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    // Focus the group that shows the file (it may already be open beside another group).
    const tab = page.locator('.tab', { hasText: fileName }).first();
    await tab.waitFor({ timeout: 30_000 });
    await tab.click();
    await page.locator('.editor-group-container.active .tab.active', { hasText: fileName }).waitFor({ timeout: 30_000 });
  };
  await openFile();

  // 1. Inlay hint on the dominant line, then every labelled line.
  const hintLine = dominant.currentLine ?? dominant.line;
  const seen = await until(async () => {
    const lines = await editorLines();
    return (lines[hintLine] ?? '').includes(dominant.label) ? lines : undefined;
  });
  const lines = await editorLines();
  check(
    'inlay hint on the dominant line',
    Boolean(seen),
    `line ${hintLine} expected to end with "${dominant.label}", editor shows "${(lines[hintLine] ?? '<line not rendered>').trim()}"`,
  );
  const missing = labelled.filter((l) => !(lines[l.currentLine ?? l.line] ?? '').includes(expectedHint(l)));
  check(
    'share markers on the hot lines',
    markerOf(dominant) === '▮▮▮' && (lines[hintLine] ?? '').includes(`▮▮▮ ${dominant.label}`),
    `line ${hintLine} shows "${(lines[hintLine] ?? '').trim()}" (expected "▮▮▮ ${dominant.label}")`,
  );
  check(
    'inlay hints on every labelled line',
    missing.length === 0,
    missing.length === 0
      ? `${labelled.length} lines match perfline annotate, each with its marker`
      : `missing on ${missing.map((l) => `${l.line} ("${expectedHint(l)}")`).join(', ')}`,
  );

  // 2. Code lens titles.
  const lenses = await until(async () => {
    const texts = await page.locator('.monaco-editor .codelens-decoration').allInnerTexts();
    return texts.length > 0 ? texts : undefined;
  }, 30_000);
  const shown = (lenses ?? []).map((t) => t.trim());
  const matched = lensTitles.filter((title) => shown.some((s) => s.includes(title)));
  check(
    'code lens',
    lensTitles.length > 0 && matched.length === lensTitles.length,
    `expected ${JSON.stringify(lensTitles)}, shown ${JSON.stringify(shown)}`,
  );
  await shot('1-editor-hints-lenses');

  // 3. Status bar item with the model totals.
  const statusLabel = await until(async () => {
    const labels = await page
      .locator('#workbench\\.parts\\.statusbar [aria-label^="perfline"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    return labels.find((l) => /\d/.test(l) && !l.includes('analysing'));
  }, 60_000);
  check('status bar item', Boolean(statusLabel), `aria-label "${statusLabel ?? '<none with a figure>'}"`);
  if (statusLabel) {
    await page.locator(`#workbench\\.parts\\.statusbar [aria-label="${statusLabel}"]`).first().hover();
    await sleep(1500);
    await shot('2-status-bar-tooltip');
    await page.screenshot({ path: join(shots, '2b-status-bar-zoom.png'), clip: { x: 0, y: 1300 - 260, width: 760, height: 260 } });
    await page.mouse.move(800, 600);
  }

  // 4. Hovers: the dominant line's operators, the pooling line's statistics.
  const visibleHover = () =>
    page.evaluate(() => {
      const hovers = [...document.querySelectorAll('.monaco-hover-content')].filter(
        (el) => el instanceof HTMLElement && el.offsetParent !== null && el.innerText.trim() !== '',
      );
      const hover = hovers.find((el) => el.querySelector('table')) ?? hovers[0];
      return hover instanceof HTMLElement
        ? { text: hover.innerText, tables: hover.querySelectorAll('table').length }
        : undefined;
    });
  /** Hovers a word of the editor line showing `text`; the hover's text and its table count. */
  const hoverOn = async (text) => {
    const word = page
      .locator('.editor-group-container.active .view-lines .view-line', { hasText: text })
      .locator('span span')
      .filter({ hasText: /\w{3,}/ })
      .first();
    let found = { text: '', tables: 0 };
    for (let attempt = 0; attempt < 5 && found.tables === 0; attempt += 1) {
      await page.mouse.move(10, 10);
      const box = await word.boundingBox();
      if (box === null) {
        break;
      }
      await page.mouse.move(box.x + box.width / 2 - 2, box.y + box.height / 2);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
      found = (await until(visibleHover, 6_000, 250)) ?? found;
    }
    return found;
  };
  const token = page
    .locator('.editor-group-container.active .view-lines .view-line', { hasText: dominant.label })
    .locator('span span')
    .filter({ hasText: /\w{3,}/ })
    .first();
  const operators = await hoverOn(dominant.label);
  check(
    'hover: operators under the line and what ran',
    operators.tables >= 2 &&
      /type\s+operator/.test(operators.text) &&
      /aten\.conv2d/.test(operators.text) &&
      /ExecuTorch CPU kernels \(no delegate\), measured, 10 runs/.test(operators.text) &&
      !/neural-technology|n\/a/.test(operators.text),
    `tables=${operators.tables}; hover text: ${JSON.stringify(operators.text.slice(0, 500))}`,
  );
  await shot('3-hover');
  await page.keyboard.press('Escape');
  if (statsLine === undefined) {
    check('hover: every statistic', false, 'perfline annotate shows no figure on line 42');
  } else {
    const stats = await hoverOn(statsLine.label);
    const header = ['avg', 'p50', 'p90', 'min', 'max', 'runs'];
    check(
      'hover: every statistic, the unit once',
      new RegExp(`measure\\s+${header.join('\\s+')}`).test(stats.text) && /duration \(ms\)/.test(stats.text),
      `hover text: ${JSON.stringify(stats.text.slice(0, 500))}`,
    );
    await shot('3b-hover-statistics');
    await page.keyboard.press('Escape');
  }

  // 5. Show Breakdown on the dominant line (cursor placed there by clicking it): a rendered
  // Markdown preview (a webview), never the Markdown source, without rows of "n/a".
  await token.click();
  await runCommand('perfline: Show Breakdown');
  let rendered = { title: '', tables: 0, text: '' };
  try {
    await page.locator('.tab', { hasText: /Preview breakdown-lines-/ }).first().waitFor({ timeout: 30_000 });
    const preview = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await preview.locator('h1').first().waitFor({ timeout: 30_000 });
    rendered = {
      title: await preview.locator('h1').first().innerText(),
      tables: await preview.locator('table').count(),
      text: await preview.locator('body').innerText(),
    };
  } catch (error) {
    rendered.text = String(error);
  }
  check(
    'Show Breakdown: rendered',
    rendered.title.includes(`${fileName}:${hintLine}`) &&
      rendered.tables >= 2 &&
      !/\bn\/a\b/.test(rendered.text) &&
      !rendered.text.includes('| ---'),
    `h1 "${rendered.title}", ${rendered.tables} tables; text: ${JSON.stringify(rendered.text.slice(0, 300))}`,
  );
  await shot('4-breakdown');

  // 5b. perfline: Show Report: the page the server renders (perfline/reportHtml) in a webview,
  // its Content Security Policy nonce-only; the dominant line's figure inside it is the editor's
  // label; a click on another line's number jumps to that line in the editor.
  await openFile();
  await runCommand('View: Close Editors in Other Groups');
  await runCommand('perfline: Show Report');
  const reportFrame = await frameWhere(
    () => document.documentElement.getAttribute('data-ready') === '1' && document.getElementById('perfline-data') !== null,
  );
  if (reportFrame === undefined) {
    check('Show Report: the page in a webview', false, 'no webview frame with the report page');
  } else {
    const lineOf = (no) => reportFrame.locator(`details.file[data-file="${fileName}"] .ln[data-line="${no}"]`);
    const figure = ((await lineOf(hintLine).locator('.fig').textContent()) ?? '').trim();
    const policy = (await reportFrame.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')) ?? '';
    const tab = await page.locator('.tab', { hasText: 'perfline report' }).first().textContent().catch(() => null);
    check(
      'Show Report: line figure in the webview',
      figure === dominant.label && /script-src 'nonce-[^']+'/.test(policy) && /style-src 'nonce-[^']+'/.test(policy) &&
        policy.includes("default-src 'none'") && !policy.includes('unsafe-inline') && Boolean(tab),
      `line ${hintLine} shows "${figure}" (perfline annotate: "${dominant.label}"); tab "${(tab ?? '<none>').trim()}"; CSP "${policy}"`,
    );
    await lineOf(hintLine).scrollIntoViewIfNeeded();
    await shot('4b-report-webview');
    const jumpLine = statsLine?.line ?? 42;
    await lineOf(jumpLine).locator('.no a').click();
    const selection = await until(async () => {
      const text = (await page.locator('[id="status.editor.selection"]').first().textContent().catch(() => '')) ?? '';
      return text.includes(`Ln ${jumpLine},`) ? text : undefined;
    }, 20_000);
    const active = await page.locator('.editor-group-container.active .tab.active').first().textContent().catch(() => '');
    check(
      'Show Report: a click on a line jumps to it in the editor',
      Boolean(selection) && (active ?? '').includes(fileName),
      `clicked line ${jumpLine} in the report; status bar "${selection ?? '<no such line>'}", active tab "${(active ?? '').trim()}"`,
    );
    await shot('4c-report-jump');
  }

  // 5c. The compare view in the webview: Show Report with a baseline document (a key bound to
  // the command with {baseline}); every labelled line is coloured by the verdict `perfline compare
  // --json` gives for the same two documents (a call line's change that the lines it calls account
  // for, `explained_by_calls`, is counted there: uncoloured, with an "inclusive" note).
  if (args.compare) {
    const compared = JSON.parse(readFileSync(args.compare, 'utf8'));
    const verdictOf = (no) =>
      compared.results
        .flatMap((r) => r.entities)
        .find((e) => e.kind === 'code_line' && e.new_line === no)
        ?.metrics.find((m) => m.name === 'duration_avg');
    const classOf = (metric) =>
      counted(metric) ? { regression: 'sig-regressed', improvement: 'sig-improved' }[metric.verdict] : 'sig-unchanged';
    const lineVerdict = verdictOf(hintLine);
    const wantClass = classOf(lineVerdict);
    await page.keyboard.press('Control+Alt+J');
    const compareFrame = await frameWhere(
      () => document.documentElement.getAttribute('data-ready') === '1' && document.getElementById('compare')?.hidden === false,
    );
    if (compareFrame === undefined) {
      check('Show Report: the compare view with a baseline', false, 'no webview frame with the compare view');
    } else {
      const lineAt = (no) => compareFrame.locator(`details.file[data-file="${fileName}"] .ln[data-line="${no}"]`);
      const line = lineAt(hintLine);
      const classes = (await line.getAttribute('class')) ?? '';
      const delta = ((await line.locator('.delta').textContent()) ?? '').trim();
      const baselineText = (await compareFrame.locator('#compare-body').textContent()) ?? '';
      const tab = await page.locator('.tab', { hasText: 'perfline compare' }).first().textContent().catch(() => null);
      check(
        'Show Report: the compare view with a baseline',
        Boolean(lineVerdict) && classes.split(' ').includes(wantClass) && delta !== '' && baselineText.includes('baseline.json') &&
          Boolean(tab),
        `perfline compare --json: line ${hintLine} ${lineVerdict?.verdict} (significant ${lineVerdict?.significant}, ` +
          `explained by its calls ${Boolean(lineVerdict?.explained_by_calls)}, ` +
          `${lineVerdict?.base?.toFixed(3)} -> ${lineVerdict?.new?.toFixed(3)} ms); webview line classes "${classes}", ` +
          `delta "${delta}"; tab "${(tab ?? '<none>').trim()}"`,
      );
      const colours = [];
      for (const l of labelled) {
        const metric = verdictOf(l.line);
        const shown = lineAt(l.line);
        const cls = ((await shown.getAttribute('class')) ?? '').split(' ');
        const title = (await shown.locator('.delta').getAttribute('title')) ?? '';
        const inclusive = Boolean(metric?.explained_by_calls && metric.significant);
        colours.push({
          line: l.line,
          ok: Boolean(metric) && cls.includes(classOf(metric)) && (!inclusive || title.includes('inclusive')),
          text: `${l.line} ${metric?.verdict}${inclusive ? ' (inclusive)' : ''} -> ${cls.filter((c) => c.startsWith('sig-')).join(' ')}` +
            (inclusive ? ` "${title}"` : ''),
        });
      }
      check(
        'Show Report: every line coloured by perfline compare, a call line inclusive',
        colours.every((c) => c.ok) && colours.some((c) => c.text.includes('(inclusive)')),
        colours.map((c) => `${c.ok ? '' : 'WRONG '}${c.text}`).join('; '),
      );
      await line.scrollIntoViewIfNeeded();
      await shot('4d-report-compare');
    }
  }

  // 6. Show Result JSON.
  await runCommand('perfline: Show Result JSON');
  let resultOk = false;
  try {
    await page.locator('.tab', { hasText: 'result.json' }).first().waitFor({ timeout: 30_000 });
    await sleep(1000);
    const text = await page.locator('.editor-group-container.active .view-lines').first().innerText();
    resultOk = text.includes('"schema_version"') && text.includes('"run_id"');
  } catch {
    resultOk = false;
  }
  check('Show Result JSON', resultOk, resultOk ? 'processed document opened' : 'result.json not shown');
  await shot('5-result-json');

  // 6b. A configuration error is a diagnostic on its line of perfline.toml (Problems panel),
  // and goes away once the file is fixed.
  const config = join(workspace, 'perfline.toml');
  const good = readFileSync(config, 'utf8');
  writeFileSync(config, good.replace('backend = "executorch"', 'backend = "exectorch"'));
  await runCommand('View: Focus Problems');
  const problem = await until(async () => {
    const text = await page.locator('.markers-panel').first().innerText().catch(() => '');
    return text.includes("unknown backend 'exectorch'") ? text : undefined;
  }, 60_000);
  check('diagnostic: a broken perfline.toml', Boolean(problem), `Problems panel: ${JSON.stringify((problem ?? '').slice(0, 300))}`);
  await shot('5b-diagnostic');
  writeFileSync(config, good);
  const cleared = await until(async () => {
    const text = await page.locator('.markers-panel').first().innerText().catch(() => 'x');
    return text.includes('exectorch') ? undefined : true;
  }, 60_000);
  check('diagnostic cleared once fixed', Boolean(cleared), cleared ? 'gone from the Problems panel' : 'still shown');
  await page.keyboard.press('Escape');
  await runCommand('View: Hide Panel'); // give the editor its height back (later checks read lines)
  await sleep(500);

  // 6c. A baseline: Set Current Result as Baseline, then a second real ETDump of the same program
  // written over the first. The hints show the significant changes only (▲/▼ with the percentage
  // `perfline compare` computes in-process from the two dumps), the hover base, new and delta, the
  // Problems panel the regressions; then the first ETDump comes back and the deltas go.
  const compared = JSON.parse(readFileSync(need('expected-compare'), 'utf8'));
  /** line -> its `duration_avg` delta in `perfline compare --json`. */
  const lineDeltas = new Map();
  for (const entity of compared.results[0].entities) {
    const metric = entity.kind === 'code_line' ? entity.metrics.find((m) => m.name === 'duration_avg') : undefined;
    if (metric !== undefined) {
      lineDeltas.set(entity.new_line, metric);
    }
  }
  /** The change as written (▲12%), of a significant figure; `markOf` only for a change the line
   * counts (a call line's change its callees account for is shown on them, not on it). */
  const changeOf = (metric) => {
    if (!metric?.significant || typeof metric.ratio !== 'number') {
      return '';
    }
    const percent = Math.abs(metric.ratio - 1) * 100;
    return `${metric.ratio > 1 ? '▲' : '▼'}${percent > 0 && percent < 1 ? '<1' : percent.toFixed(0)}%`;
  };
  const markOf = (metric) => (counted(metric) ? changeOf(metric) : '');
  const etdump = join(workspace, 'dscnn_portable.etdump');
  const firstDump = readFileSync(etdump);
  const replaceDump = (bytes) => {
    writeFileSync(`${etdump}.tmp`, bytes);
    renameSync(`${etdump}.tmp`, etdump);
  };
  await runCommand('perfline: Set Current Result as Baseline');
  const baselineSet = await until(() => perflineLog().includes('is now its baseline'), 60_000);
  check('Set Current Result as Baseline', Boolean(baselineSet), baselineSet ? 'the server kept the result as the baseline' : 'no confirmation in the perfline log');
  replaceDump(readFileSync(need('rerun')));
  await openFile();
  // The hottest line whose change it counts (the dominant line may be a call line, whose
  // change is its callees').
  const deltaLine = [...labelled]
    .sort((a, b) => shareOf(b.label) - shareOf(a.label))
    .find((l) => markOf(lineDeltas.get(l.line)) !== '') ?? dominant;
  const deltaAt = deltaLine.currentLine ?? deltaLine.line;
  const deltaMark = markOf(lineDeltas.get(deltaLine.line));
  const deltaLines = await until(async () => {
    const now = await editorLines();
    return (now[deltaAt] ?? '').includes(deltaMark) ? now : undefined;
  }, 90_000);
  const shownDeltas = deltaLines ?? (await editorLines());
  const wrongDeltas = labelled.filter((l) => {
    const text = shownDeltas[l.currentLine ?? l.line] ?? '';
    const mark = markOf(lineDeltas.get(l.line));
    return mark === '' ? /[▲▼]/.test(text) : !text.includes(mark);
  });
  const inclusiveLines = labelled.filter((l) => lineDeltas.get(l.line)?.explained_by_calls && lineDeltas.get(l.line)?.significant);
  check(
    'delta hints after a new run',
    deltaMark !== '' && Boolean(deltaLines) && wrongDeltas.length === 0,
    `line ${deltaAt} shows "${(shownDeltas[deltaAt] ?? '').trim()}" (expected ${deltaMark}); ` +
      `significant lines ${[...lineDeltas].filter(([, m]) => m.significant).map(([n, m]) => `${n} ${changeOf(m)}${m.explained_by_calls ? ' (inclusive)' : ''}`).join(', ')}; ` +
      inclusiveLines.map((l) => `call line ${l.line} shows "${(shownDeltas[l.currentLine ?? l.line] ?? '').trim()}"; `).join('') +
      (wrongDeltas.length === 0 ? 'every other line as perfline compare counts it' : `wrong on ${wrongDeltas.map((l) => l.line).join(', ')}`),
  );
  const deltaLenses = await until(async () => {
    const texts = (await page.locator('.monaco-editor .codelens-decoration').allInnerTexts()).map((t) => t.trim());
    return texts.some((t) => /total [▲▼]\d+%/.test(t)) ? texts : undefined;
  }, 60_000);
  check('lens: a block total with its change', Boolean(deltaLenses), `lenses ${JSON.stringify(deltaLenses ?? [])}`);
  await shot('5c-delta-hints');
  const sourceLines = readFileSync(join(workspace, fileName), 'utf8').split('\n');
  const deltaHover = await hoverOn(sourceLines[deltaLine.line - 1].trim());
  const againstPart = (text) => text.slice(Math.max(0, text.indexOf('Against the baseline')));
  const verdictWord = { regression: 'regression', improvement: 'improvement' }[lineDeltas.get(deltaLine.line)?.verdict] ?? '?';
  check(
    'hover: base, new and delta against the baseline',
    /Against the baseline/.test(deltaHover.text) && /metric\s+base\s+new\s+delta\s+change\s+verdict/.test(deltaHover.text) &&
      againstPart(deltaHover.text).includes(deltaMark) && againstPart(deltaHover.text).includes(verdictWord),
    `line ${deltaLine.line}; hover text: ${JSON.stringify(againstPart(deltaHover.text).slice(0, 600))}`,
  );
  await shot('5d-delta-hover');
  await page.keyboard.press('Escape');
  for (const l of inclusiveLines) {
    const metric = lineDeltas.get(l.line);
    const hover = await hoverOn(sourceLines[l.line - 1].trim());
    const against = againstPart(hover.text);
    check(
      `hover: call line ${l.line}'s change is inclusive`,
      against.includes(`${changeOf(metric)} inclusive: the lines this line calls account for the change, and it is counted there.`) &&
        against.includes(`${metric.verdict}, inclusive`),
      `perfline compare --json: ${changeOf(metric)} ${metric.verdict}, explained by its calls; hover text: ${JSON.stringify(against.slice(0, 600))}`,
    );
    await shot(`5d2-delta-hover-call-line-${l.line}`);
    await page.keyboard.press('Escape');
  }
  await runCommand('View: Focus Problems');
  const regressions = await until(async () => {
    const text = await page.locator('.markers-panel').first().innerText().catch(() => '');
    return text.includes('regressed against the baseline') ? text : undefined;
  }, 60_000);
  check('regression warning in the Problems panel', Boolean(regressions), `Problems panel: ${JSON.stringify((regressions ?? '').slice(0, 300))}`);
  await shot('5e-regression-warnings');
  await page.keyboard.press('Escape');
  await runCommand('View: Hide Panel');
  replaceDump(firstDump);
  await openFile();
  const back = await until(async () => {
    const now = await editorLines();
    return (now[hintLine] ?? '').includes(expectedHint(dominant)) && !/[▲▼]/.test(now[hintLine] ?? '') ? true : undefined;
  }, 90_000);
  check('deltas gone with the baseline run back', Boolean(back), back ? `line ${hintLine} shows "${expectedHint(dominant)}" again` : 'still a delta or another figure');
  await sleep(500);

  // 7. Reanalyze: the status bar spins while the server reports progress, then shows totals again.
  const statusLabels = () =>
    page
      .locator('#workbench\\.parts\\.statusbar [aria-label^="perfline"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  const lastGeneration = Math.max(0, ...generations());
  await runCommand('perfline: Reanalyze');
  let spinnerSeen = false;
  const newer = await until(async () => {
    const labels = await statusLabels();
    spinnerSeen ||= labels.some((l) => l.includes('analysing'));
    const fresh = generations().filter((g) => g > lastGeneration);
    return fresh.length > 0 ? Math.max(...fresh) : undefined;
  }, 60_000, 100);
  const settled = (await statusLabels()).find((l) => /\d/.test(l) && !l.includes('analysing'));
  check(
    'Reanalyze',
    Boolean(newer) && Boolean(settled),
    `result generation ${lastGeneration} -> ${newer ?? '<no new result>'}; status bar "${settled ?? '<none>'}"; ` +
      `spinner seen: ${spinnerSeen ? 'yes' : 'no (the run finished within the server\'s 0.5 s progress delay)'}`,
  );

  // 8. Crash: kill the server the extension started; it must come back by itself.
  const before = serverPids(serverParent);
  if (before.length === 1) {
    process.kill(before[0], 'SIGKILL');
    const restarted = await until(() => {
      const now = serverPids(serverParent);
      return now.length === 1 && now[0] !== before[0] ? now[0] : undefined;
    }, 60_000);
    await openFile();
    const back = await until(async () => ((await editorLines())[hintLine] ?? '').includes(dominant.label), 60_000);
    check(
      'restart after a crash',
      Boolean(restarted) && Boolean(back),
      `killed server pid ${before[0]}; new pid ${restarted ?? '<none>'}; hint back on line ${hintLine}: ${Boolean(back)}`,
    );
    await shot('6-after-restart');
  } else {
    check('restart after a crash', false, `expected one perfline server below pid ${serverParent}, found ${JSON.stringify(before)}`);
  }

  // 9. Settings apply without a reload: hide hints below 5 % and change the format.
  // Edited the way a user does it: in the user settings JSON editor, then saved. (code-server does
  // not notice a write to settings.json from outside, so writing the file would test nothing.)
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
  const changed = { ...settings, 'perfline.hints.minShare': 5, 'perfline.hints.format': '{value} ({share})' };
  await runCommand('Preferences: Open User Settings (JSON)');
  await page.locator('.tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 20_000 });
  await sleep(1000);
  await page.locator('.editor-group-container.active .view-lines').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // One line: Monaco auto-closes the first brace and overtypes it with the last one; newlines
  // would trigger auto-indentation and leave a stray brace.
  await page.keyboard.insertText(JSON.stringify(changed));
  await page.keyboard.press('Control+S');
  await sleep(1000);
  await openFile();
  const dominantShare = /(\d+%)\s*$/.exec(dominant.label)?.[1] ?? '?';
  const small = labelled.filter((l) => shareOf(l.label) < 5);
  const kept = labelled.filter((l) => shareOf(l.label) >= 5);
  const applied = await until(async () => {
    const now = await editorLines();
    const dominantText = now[hintLine] ?? '';
    const ok =
      dominantText.includes(`(${dominantShare})`) &&
      !dominantText.includes(dominant.label) &&
      small.every((l) => !(now[l.currentLine ?? l.line] ?? '').includes(' ms')) &&
      kept.every((l) => (now[l.currentLine ?? l.line] ?? '').includes('%'));
    return ok ? now : undefined;
  }, 30_000);
  const after = await editorLines();
  check(
    'settings applied without reload',
    Boolean(applied),
    `minShare 5 + format "{value} ({share})": line ${hintLine} shows "${(after[hintLine] ?? '').trim()}", ` +
      `hidden: ${small.map((l) => `${l.line}="${(after[l.currentLine ?? l.line] ?? '').trim()}"`).join(', ')}`,
  );
  await shot('7-settings-applied');
} catch (error) {
  check('driver', false, error instanceof Error ? error.stack ?? error.message : String(error));
  await shot('error').catch(() => undefined);
} finally {
  if (results.some((r) => !r.ok)) {
    exitCode = 1;
    try {
      await runCommand('perfline: Show Log');
      await sleep(2000);
      const log = await page.locator('.panel .monaco-editor .view-lines').first().innerText({ timeout: 5_000 });
      console.log(`--- perfline log (visible part) ---\n${log}`);
      await shot('9-log');
    } catch {
      console.log('(could not read the perfline log)');
    }
  }
  await browser.close();
}
const failed = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - failed}/${results.length} checks passed`);
console.log(`e2e: ${results.length - failed} passed, ${failed} failed`);
process.exit(exitCode);
