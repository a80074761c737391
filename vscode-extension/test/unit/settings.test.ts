import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  configurationFor,
  DEFAULT_COMPARE,
  DEFAULT_HINT_FORMAT,
  DEFAULT_SETTINGS,
  needsPush,
  needsRestart,
  placeholdersOf,
  readSettings,
  serverSettings,
} from '../../src/settings';

const from =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

describe('readSettings', () => {
  it('gives the defaults when nothing is set', () => {
    const { settings, problems } = readSettings(from({}));
    assert.deepEqual(settings, DEFAULT_SETTINGS);
    assert.deepEqual(problems, []);
  });

  it('keeps valid values, trimming strings', () => {
    const { settings, problems } = readSettings(
      from({
        'hints.metric': ' inference_time ',
        'hints.format': '{value} ({share})',
        'hints.minShare': 2.5,
        'trace.server': 'verbose',
        'server.python': '/opt/venv/bin/python',
        'server.extraArgs': ['--log-file', 'x.log'],
      }),
    );
    assert.deepEqual(problems, []);
    assert.equal(settings.hints.metric, 'inference_time');
    assert.equal(settings.hints.format, '{value} ({share})');
    assert.equal(settings.hints.minShare, 2.5);
    assert.equal(settings.trace, 'verbose');
    assert.equal(settings.server.python, '/opt/venv/bin/python');
    assert.deepEqual(settings.server.extraArgs, ['--log-file', 'x.log']);
  });

  it('rejects unknown placeholders and names them', () => {
    const { settings, problems } = readSettings(from({ 'hints.format': '{value} {cycles}' }));
    assert.equal(settings.hints.format, DEFAULT_HINT_FORMAT);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /perfline\.hints\.format: unknown placeholder \{cycles\}/);
  });

  it('requires {value} in the format', () => {
    const { settings, problems } = readSettings(from({ 'hints.format': '{share}' }));
    assert.equal(settings.hints.format, DEFAULT_HINT_FORMAT);
    assert.match(problems[0] ?? '', /has no \{value\}/);
  });

  it('clamps the share threshold into 0-100 and rejects non-numbers', () => {
    assert.equal(readSettings(from({ 'hints.minShare': 150 })).settings.hints.minShare, 100);
    assert.equal(readSettings(from({ 'hints.minShare': -3 })).settings.hints.minShare, 0);
    const bad = readSettings(from({ 'hints.minShare': '5' }));
    assert.equal(bad.settings.hints.minShare, 0);
    assert.match(bad.problems[0] ?? '', /expected a number, found string "5"/);
  });

  it('falls back to off for an unknown trace level', () => {
    const { settings, problems } = readSettings(from({ 'trace.server': 'loud' }));
    assert.equal(settings.trace, 'off');
    assert.match(problems[0] ?? '', /"loud" is not one of off, messages, verbose/);
  });

  it('ignores extra arguments that are not all strings', () => {
    const { settings, problems } = readSettings(from({ 'server.extraArgs': ['--x', 3] }));
    assert.deepEqual(settings.server.extraArgs, []);
    assert.equal(problems.length, 1);
  });

  it('treats an empty metric as auto', () => {
    assert.equal(readSettings(from({ 'hints.metric': '  ' })).settings.hints.metric, 'auto');
  });
});

describe('placeholdersOf', () => {
  it('lists placeholders in order', () => {
    assert.deepEqual(placeholdersOf('{value} · {share} {}'), ['value', 'share', '']);
  });
});

describe('settings changes', () => {
  const base = readSettings(from({})).settings;

  it('restarts only for launch settings', () => {
    const python = readSettings(from({ 'server.python': 'python3.12' })).settings;
    const metric = readSettings(from({ 'hints.metric': 'npu_cycles' })).settings;
    const args = readSettings(from({ 'server.extraArgs': ['-v'] })).settings;
    assert.equal(needsRestart(base, python), true);
    assert.equal(needsRestart(base, args), true);
    assert.equal(needsRestart(base, metric), false);
  });

  it('pushes hint and trace changes, not launch changes', () => {
    const metric = readSettings(from({ 'hints.minShare': 5 })).settings;
    const trace = readSettings(from({ 'trace.server': 'messages' })).settings;
    const python = readSettings(from({ 'server.python': 'python3.12' })).settings;
    assert.equal(needsPush(base, metric), true);
    assert.equal(needsPush(base, trace), true);
    assert.equal(needsPush(base, python), false);
  });

  it('sends the server no launch details', () => {
    const settings = readSettings(from({ 'server.path': '/usr/bin/perfline', 'hints.minShare': 1 })).settings;
    assert.deepEqual(serverSettings(settings), {
      hints: { metric: 'auto', format: DEFAULT_HINT_FORMAT, minShare: 1 },
      compare: DEFAULT_COMPARE,
      trace: { server: 'off' },
    });
  });

  it('pushes compare changes', () => {
    const threshold = readSettings(from({ 'compare.regressionThreshold': 10 })).settings;
    assert.equal(needsPush(base, threshold), true);
    assert.equal(needsRestart(base, threshold), false);
    assert.equal(serverSettings(threshold).compare.regressionThreshold, 10);
  });
});

describe('compare settings', () => {
  it('keeps valid values', () => {
    const { settings, problems } = readSettings(
      from({
        'compare.regressionThreshold': 12.5,
        'compare.level': 0.01,
        'compare.correction': 'bh',
        'compare.estimateThreshold': 2,
      }),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(settings.compare, { regressionThreshold: 12.5, level: 0.01, correction: 'bh', estimateThreshold: 2 });
  });

  it('falls back to the defaults, naming each rejected value', () => {
    const { settings, problems } = readSettings(
      from({
        'compare.regressionThreshold': -1,
        'compare.level': 1,
        'compare.correction': 'bonferroni',
        'compare.estimateThreshold': '5%',
      }),
    );
    assert.deepEqual(settings.compare, DEFAULT_COMPARE);
    assert.equal(problems.length, 4);
    assert.match(problems[0] ?? '', /perfline\.compare\.regressionThreshold: expected a number from 0 to 1000, found number -1; using 5/);
    assert.match(problems[1] ?? '', /perfline\.compare\.level: expected a number between 0 and 1, found number 1; using 0\.05/);
    assert.match(problems[2] ?? '', /perfline\.compare\.correction: expected one of holm, bh, none/);
    assert.match(problems[3] ?? '', /perfline\.compare\.estimateThreshold: .* found string "5%"/);
  });

  it('accepts {delta} in the hint format', () => {
    const { settings, problems } = readSettings(from({ 'hints.format': '{value} {delta}' }));
    assert.deepEqual(problems, []);
    assert.equal(settings.hints.format, '{value} {delta}');
  });
});

describe('configurationFor', () => {
  const settings = readSettings(from({ 'hints.metric': 'inference_time' })).settings;

  it('answers perfline sections from the validated settings', () => {
    assert.deepEqual(configurationFor('perfline', settings), serverSettings(settings));
    assert.equal(configurationFor('perfline.hints.metric', settings), 'inference_time');
    assert.equal(configurationFor('perfline.hints.nothing', settings), null);
  });

  it('leaves other sections alone', () => {
    assert.equal(configurationFor('python', settings), undefined);
    assert.equal(configurationFor('perflinex', settings), undefined);
    assert.equal(configurationFor(undefined, settings), undefined);
  });
});
