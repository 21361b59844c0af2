import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsError, readSettingsFile, settingsInForce, settingsPath } from '../../main/settings/settings';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let home: string;
let file: string;

beforeEach(() => {
  home = makeTempFolder();
  file = settingsPath(home);
});
afterEach(() => removeTempFolder(home));

/** Writes the settings file and returns the error reading it gives. */
function refusal(text: string): SettingsError {
  writeFileSync(file, text);
  try {
    readSettingsFile(file, home);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    // Nothing is lost: the person's file is exactly as they wrote it.
    expect(readFileSync(file, 'utf8')).toBe(text);
    return error as SettingsError;
  }
  throw new Error('the settings file was accepted');
}

describe('settings.json', () => {
  it('is optional: no file, no settings', () => {
    expect(readSettingsFile(file, home)).toEqual({});
  });

  it('reads every setting, with ~ and absolute paths made absolute', () => {
    mkdirSync(join(home, 'project'));
    writeFileSync(
      file,
      JSON.stringify({
        workspace: '~/project',
        grants: ['net:read:docs.python.org'],
        approvalTimeoutSeconds: 60,
        sandbox: 'require',
        toolModules: ['~/tools/more.mjs', '/opt/tools.mjs'],
        pool: 3,
        readOnly: true,
        port: 0,
        secretEnv: ['GITHUB_TOKEN'],
      }),
    );
    expect(readSettingsFile(file, home)).toEqual({
      workspace: join(home, 'project'),
      grants: ['net:read:docs.python.org'],
      approvalTimeoutSeconds: 60,
      sandbox: 'require',
      toolModules: [join(home, 'tools/more.mjs'), '/opt/tools.mjs'],
      pool: 3,
      readOnly: true,
      port: 0,
      secretEnv: ['GITHUB_TOKEN'],
    });
  });

  it('refuses a file that is not JSON, naming the file, where it breaks and the fix', () => {
    const error = refusal('{ "workspace": "~/x", }');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/is not JSON at line 1, column \d+/);
    expect(error.message).toContain('Fix: write one JSON object');
    expect(error.message).toContain('did not start');
  });

  it('refuses JSON that is not an object', () => {
    expect(refusal('["~/x"]').message).toContain('is not a JSON object');
  });

  it('refuses an unknown key and suggests the one that was meant', () => {
    const error = refusal(JSON.stringify({ worksapce: '/tmp' }));
    expect(error.field).toBe('worksapce');
    expect(error.message).toContain('"worksapce" is not a setting');
    expect(error.message).toContain('did you mean "workspace"?');
  });

  it('refuses a wrong type, naming the field and what it takes', () => {
    const error = refusal(JSON.stringify({ approvalTimeoutSeconds: '300' }));
    expect(error.field).toBe('approvalTimeoutSeconds');
    expect(error.message).toContain('a whole number of seconds from 1 to 86400');
    expect(refusal(JSON.stringify({ sandbox: 'on' })).message).toContain('"auto", "require" or "off"');
    expect(refusal(JSON.stringify({ grants: ['teleport'] })).field).toBe('grants.0');
    expect(refusal(JSON.stringify({ pool: 0 })).field).toBe('pool');
  });

  it('takes the audit durability "process" or "power", and refuses another, saying what each survives', () => {
    writeFileSync(file, JSON.stringify({ auditDurability: 'power' }));
    expect(readSettingsFile(file, home)).toEqual({ auditDurability: 'power' });
    const error = refusal(JSON.stringify({ auditDurability: 'fsync' }));
    expect(error.field).toBe('auditDurability');
    expect(error.message).toContain('"process" (records survive the gate being killed) or "power" (they also survive a power loss)');
  });

  it('refuses a relative path and a workspace that does not exist', () => {
    expect(refusal(JSON.stringify({ workspace: 'code/project' })).message).toContain('is relative');
    const missing = refusal(JSON.stringify({ workspace: '~/nowhere' }));
    expect(missing.field).toBe('workspace');
    expect(missing.message).toContain(`${join(home, 'nowhere')}, which is not an existing folder`);
    expect(missing.message).toContain('mkdir -p');
  });
});

describe('settings in force', () => {
  it('takes a flag over the environment over the file over the default, key by key, and says which', () => {
    const defaults = { workspace: '/cwd', grants: [], approvalTimeoutSeconds: 300, sandbox: 'auto', toolModules: [], pool: 2, readOnly: false, port: 7749, secretEnv: [], mode: 'standard', auditDurability: 'process', checkpointDir: null, checkpointEveryRecords: 1000, checkpointIntervalSeconds: 60, otlpEndpoint: null, otlpHeaders: {}, claudeCodeBashInGate: true, undoStoreBytes: 1024 ** 3, webSearch: null, team: null, teamCreds: null };
    const inForce = settingsInForce(defaults, { pool: 4, approvalTimeoutSeconds: 60, workspace: '/from-file' }, { approvalTimeoutSeconds: 10 }, { workspace: '/from-env' });
    expect(inForce.approvalTimeoutSeconds).toEqual({ value: 10, source: 'flag' });
    expect(inForce.workspace).toEqual({ value: '/from-env', source: 'environment' });
    expect(inForce.pool).toEqual({ value: 4, source: 'file' });
    expect(inForce.sandbox).toEqual({ value: 'auto', source: 'default' });
  });
});
