import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../main/hosts/sandbox';
import { spawnServe, type ServeProcess } from './cliProcesses';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';

/**
 * Every sandbox has a private, empty /tmp. Node itself may live there (unpacked from the npm
 * registry into a temp folder, as CI does) and so may Electron (an AppImage mounts under /tmp):
 * the program that runs tool processes is shown to them, or no tool could start at all.
 */

let serve: ServeProcess | undefined;
let dirs: TempDirs | undefined;
let runtime: string | undefined;
afterEach(async () => {
  await serve?.stop();
  dirs?.remove();
  if (runtime) rmSync(runtime, { recursive: true, force: true });
  serve = dirs = runtime = undefined;
});

describe.skipIf(detectSandbox('auto').kind === 'none')('a Node that lives under /tmp', () => {
  it('runs sandboxed tools: the echo comes back through a gate started with it', async () => {
    runtime = mkdtempSync(join(tmpdir(), 'toolgate-node-'));
    expect(runtime.startsWith('/tmp/')).toBe(true);
    mkdirSync(join(runtime, 'bin'));
    const node = join(runtime, 'bin', 'node');
    copyFileSync(process.execPath, node);
    dirs = makeTempDirs();
    serve = await spawnServe(dirs, ['--sandbox', 'require'], node);
    const client = await connectMcp(serve.mcpUrl, readToken(dirs.home));
    try {
      const result = (await client.callTool({ name: 'echo', arguments: { text: 'from a Node under /tmp' } })) as CallToolResult;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: 'from a Node under /tmp' });
    } finally {
      await client.close();
    }
  });
});
