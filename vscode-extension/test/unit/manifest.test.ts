import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readSettings } from '../../src/settings';

// Compiled to out/test/unit; package.json and src/ are three levels up.
const root = join(__dirname, '..', '..', '..');

interface Manifest {
  version: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, { default: unknown; scope?: string }> };
  };
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const properties = manifest.contributes.configuration.properties;

describe('package.json', () => {
  it('contributes every setting the extension reads, with defaults the reader accepts', () => {
    const asked: string[] = [];
    const defaults = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.default]));
    const { problems } = readSettings((key) => {
      asked.push(`perfline.${key}`);
      return defaults[`perfline.${key}`];
    });
    assert.deepEqual(problems, []);
    assert.deepEqual([...new Set(asked)].sort(), Object.keys(properties).sort());
  });

  it('registers exactly the contributed commands', () => {
    const source = readFileSync(join(root, 'src', 'commands.ts'), 'utf8');
    const registered = [...source.matchAll(/registerCommand\(\s*'([^']+)'/g)].map((m) => m[1]);
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.deepEqual([...registered].sort(), [...contributed].sort());
  });

  it('never takes the server command from a workspace', () => {
    const launch = Object.keys(properties).filter((k) => k.startsWith('perfline.server.'));
    assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), launch.sort());
    for (const key of launch) {
      assert.equal(properties[key]?.scope, 'machine', key);
    }
  });

  it('activates on Python files', () => {
    assert.deepEqual(manifest.activationEvents, ['onLanguage:python']);
  });
});
