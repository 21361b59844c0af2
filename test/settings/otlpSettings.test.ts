import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gateOptionsFrom, resolveLaunchSettings } from '../../main/settings/launchSettings';
import { SettingsError, readSettingsFile, settingsPath } from '../../main/settings/settings';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let home: string;

beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

function launch(settings: unknown) {
  writeFileSync(settingsPath(home), JSON.stringify(settings));
  return resolveLaunchSettings({ home, flags: {}, env: {}, cwd: home });
}

describe('OTLP streaming settings', () => {
  it('are off by default and shown as none', () => {
    const { settings, report } = resolveLaunchSettings({ home, flags: {}, env: {}, cwd: home });
    expect(settings).toMatchObject({ otlpEndpoint: null, otlpHeaders: {} });
    expect(gateOptionsFrom(settings)).not.toHaveProperty('otlp');
    expect(report.entries.find((entry) => entry.key === 'otlpEndpoint')).toEqual({ key: 'otlpEndpoint', value: null, source: 'default' });
  });

  it('send spans to the endpoint with the headers given, and the console sees header names, never values', () => {
    const { settings, report } = launch({ otlpEndpoint: 'http://localhost:4318/v1/traces', otlpHeaders: { 'x-api-key': 'secret-key-123' } });
    expect(gateOptionsFrom(settings).otlp).toEqual({ endpoint: 'http://localhost:4318/v1/traces', headers: { 'x-api-key': 'secret-key-123' } });
    expect(report.entries.find((entry) => entry.key === 'otlpHeaders')).toEqual({ key: 'otlpHeaders', value: { 'x-api-key': '(hidden)' }, source: 'file' });
    expect(JSON.stringify(report)).not.toContain('secret-key-123');
  });

  it('refuse an endpoint that is not an http(s) URL, naming the field and the fix', () => {
    writeFileSync(settingsPath(home), JSON.stringify({ otlpEndpoint: 'localhost:4318' }));
    const error = (() => {
      try {
        readSettingsFile(settingsPath(home), home);
      } catch (caught) {
        return caught as SettingsError;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.field).toBe('otlpEndpoint');
    expect(error.message).toContain('is not an http:// or https:// URL');
    expect(error.message).toContain('e.g. "http://localhost:4318/v1/traces"');
  });
});
