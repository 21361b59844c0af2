import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSecrets } from '../../main/executor/steps/resolveSecrets';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import { defineTool } from '../../main/registry/defineTool';
import type { ExternalRunner, RegisteredTool } from '../../main/registry/registry';
import { parseDestination } from '../../main/secrets/secretDestinations';
import type { SecretProvider } from '../../main/secrets/secretProvider';

/** Secrets as the secrets file holds them: GH_TOKEN for the github server, HOST_TOKEN for one host, OPEN_TOKEN without --for. */
const stored: Record<string, { value: string; for?: string[] }> = {
  GH_TOKEN: { value: 'gh-token-value-1', for: ['server:github'] },
  HOST_TOKEN: { value: 'host-token-value-2', for: ['http_fetch:api.example.com'] },
  OPEN_TOKEN: { value: 'open-token-value-3' },
};
const provider: SecretProvider = {
  label: 'test secrets',
  get: async (name) => stored[name]?.value,
  known: () => Object.entries(stored).map(([name, secret]) => ({ name, value: secret.value })),
  destinations: async (name) => stored[name]?.for?.map(parseDestination),
};

/** An upstream server's tool as the gateway registers it: secrets 'refuse' in its manifest, run elsewhere. */
function upstreamTool(name: string): RegisteredTool {
  const tool = defineTool({
    name,
    version: '0.0.0',
    description: 'An upstream tool.',
    tier: 'STANDARD',
    secrets: 'refuse',
    input: z.object({ body: z.string() }).strict(),
    output: z.unknown(),
    execute: () => undefined,
  });
  return { tool, module: 'builtin', external: {} as ExternalRunner };
}

describe("secrets in an upstream tool's arguments", () => {
  it('a secret stored for the server reaches its tools, and no warning of other forms is needed', async () => {
    const resolved = await resolveSecrets(upstreamTool('github__create_issue'), { body: 'token $ENV.GH_TOKEN' }, provider);
    expect(resolved).not.toBeInstanceOf(StepFailure);
    expect(resolved).toMatchObject({ input: { body: 'token gh-token-value-1' }, secrets: ['GH_TOKEN'] });
    expect((resolved as { warning?: string }).warning).toBeUndefined();
  });

  it("another server's tool, or a secret stored for a host, is refused with EPERMISSION naming the server", async () => {
    for (const [tool, secret, wanted] of [
      ['evil__exfiltrate', 'GH_TOKEN', 'server:evil'],
      ['github__create_issue', 'HOST_TOKEN', 'server:github'],
    ] as const) {
      const refused = await resolveSecrets(upstreamTool(tool), { body: `$ENV.${secret}` }, provider);
      expect(refused).toBeInstanceOf(StepFailure);
      const { error } = refused as StepFailure;
      expect(error.code).toBe('EPERMISSION');
      expect(error.message).toContain(`$ENV.${secret} may go only to`);
      expect(error.message).toContain(`would send it to ${wanted}`);
      expect(error.message).toContain(`--for ${wanted}`);
    }
  });

  it('a secret stored without --for stays out of upstream tools, as before, saying which --for lets it in', async () => {
    const refused = await resolveSecrets(upstreamTool('github__create_issue'), { body: '$ENV.OPEN_TOKEN' }, provider);
    expect(refused).toBeInstanceOf(StepFailure);
    expect((refused as StepFailure).error.code).toBe('EVALIDATION');
    expect((refused as StepFailure).error.message).toContain('toolgate secret set OPEN_TOKEN --for server:github');
  });
});
