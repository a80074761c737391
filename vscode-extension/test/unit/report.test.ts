import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  makeNonce,
  openLineTarget,
  pageLocations,
  panelTitle,
  parseReport,
  reportParams,
  reportRequest,
} from '../../src/report';

/** The nonce the server accepts (core/report_html/page.py). */
const SERVER_NONCE = /^[A-Za-z0-9+/=_-]{8,128}$/;

/** The page data block as core/report_html/page.py writes it (`<` as \u003c). */
const page = (data: unknown): string =>
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n</head>\n<body>\n' +
  `<script type="application/json" id="perfline-data">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>\n` +
  '<script nonce="x">/* the page script */</script>\n</body>\n</html>\n';

describe('makeNonce', () => {
  it('is 24 base64 characters the server accepts, fresh each time', () => {
    const fixed = makeNonce((size) => Buffer.alloc(size, 0xfb));
    assert.equal(fixed, '+/v7+/v7+/v7+/v7+/v7+/v7');
    assert.match(fixed, SERVER_NONCE);
    const a = makeNonce();
    const b = makeNonce();
    assert.match(a, SERVER_NONCE);
    assert.equal(a.length, 24);
    assert.notEqual(a, b);
  });
});

describe('reportRequest and reportParams', () => {
  it('reads a job id or {job, baseline}', () => {
    assert.deepEqual(reportRequest('kws'), { job: 'kws' });
    assert.deepEqual(reportRequest({ job: 'kws', baseline: 'main/mlia-output.json' }), {
      job: 'kws',
      baseline: 'main/mlia-output.json',
    });
    assert.deepEqual(reportRequest({ baseline: '' }), {});
    assert.deepEqual(reportRequest(undefined), {});
    assert.deepEqual(reportRequest(['kws']), {});
  });

  it('leaves `auto` to the server and passes the rest', () => {
    assert.deepEqual(reportParams({ job: 'kws' }, 'n0nce123', 'auto'), { nonce: 'n0nce123', job: 'kws' });
    assert.deepEqual(reportParams({ baseline: 'b.json' }, 'n0nce123', 'npu_cycles'), {
      nonce: 'n0nce123',
      metric: 'npu_cycles',
      baseline: 'b.json',
    });
  });
});

describe('parseReport and panelTitle', () => {
  it('reads the answer, with or without a baseline', () => {
    const plain = parseReport({ job: 'kws', generation: 3, stale: false, title: 'perfline report: m', html: '<html>', baseline: null });
    assert.deepEqual(plain, {
      job: 'kws',
      generation: 3,
      stale: false,
      title: 'perfline report: m',
      html: '<html>',
      baseline: undefined,
      warnings: [],
    });
    assert.equal(panelTitle(plain), 'perfline report: kws');
    const compared = parseReport({
      job: 'kws',
      stale: true,
      html: '<html>',
      baseline: { file: 'main.json', pairs: 1, warnings: ['partial overlap', 3] },
    });
    assert.ok(compared !== undefined);
    assert.equal(compared.baseline, 'main.json');
    assert.deepEqual(compared.warnings, ['partial overlap']);
    assert.equal(panelTitle(compared), 'perfline compare: kws vs main.json (stale)');
  });

  it('refuses what is not one', () => {
    assert.equal(parseReport({ job: 'kws' }), undefined);
    assert.equal(parseReport('<html>'), undefined);
    assert.equal(parseReport(null), undefined);
  });
});

describe('pageLocations and openLineTarget', () => {
  const html = page({
    views: [
      { files: [{ display: 'dscnn.py', location: '/ws/dscnn.py' }, { display: 'x.py', location: null }] },
      { files: [{ display: 'a<b>.py', location: '/ws/a<b>.py' }] },
    ],
  });

  it('collects the local files the page names', () => {
    assert.deepEqual([...pageLocations(html)].sort(), ['/ws/a<b>.py', '/ws/dscnn.py']);
    assert.deepEqual([...pageLocations('<html>no data</html>')], []);
    assert.deepEqual([...pageLocations(page('not an object'))], []);
    assert.deepEqual(
      [...pageLocations('<script type="application/json" id="perfline-data">{broken</script>')],
      [],
    );
  });

  it('opens only a line of a file of the page', () => {
    const allowed = pageLocations(html);
    assert.deepEqual(openLineTarget({ type: 'openLine', file: '/ws/dscnn.py', line: 26 }, allowed), {
      file: '/ws/dscnn.py',
      line: 26,
    });
    assert.equal(openLineTarget({ type: 'openLine', file: '/etc/passwd', line: 1 }, allowed), undefined);
    assert.equal(openLineTarget({ type: 'openLine', file: 'dscnn.py', line: 26 }, allowed), undefined);
    assert.equal(openLineTarget({ type: 'openLine', file: '/ws/dscnn.py', line: 0 }, allowed), undefined);
    assert.equal(openLineTarget({ type: 'openLine', file: '/ws/dscnn.py', line: 2.5 }, allowed), undefined);
    assert.equal(openLineTarget({ type: 'openLine', file: '/ws/dscnn.py', line: '26' }, allowed), undefined);
    assert.equal(openLineTarget({ type: 'run', file: '/ws/dscnn.py', line: 26 }, allowed), undefined);
    assert.equal(openLineTarget('openLine', allowed), undefined);
  });
});
