/**
 * The gate's own transport to a stdio server: one message per line, parsed once. What a server
 * writes, however wrong, ends as an error of the connection (onerror), never as an exception out of
 * the gate's read of its pipe, and the lines after it are still read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GateStdioTransport } from '../../main/upstream/stdioTransport';
import { waitUntil } from '../fixtures/processes';

const open: GateStdioTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

/** A transport to a server that writes `text` and stays up until its stdin closes. */
async function serverWriting(text: string, maxBufferSize = 1024): Promise<{ messages: unknown[]; errors: string[]; transport: GateStdioTransport; closed: Promise<void> }> {
  const script = `process.stdout.write(${JSON.stringify(text)}); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
  const transport = new GateStdioTransport({ command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH ?? '' }, maxBufferSize });
  open.push(transport);
  const messages: unknown[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  transport.onerror = (error) => errors.push(error.message);
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  return { messages, errors, transport, closed };
}

function until(done: () => boolean): Promise<void> {
  return waitUntil(done, 'the lines the server wrote to be read');
}

describe("the gate's stdio transport", () => {
  it('reads each JSON-RPC line once, skips a line that is not JSON and names one that is JSON but not JSON-RPC', async () => {
    const text = ['{"jsonrpc":"2.0","method":"a"}', 'not json', '[1,2]', '{"jsonrpc":"1.0","id":1}', '{"jsonrpc":"2.0","id":2,"result":{}}\r', '{"jsonrpc":"2.0","met'].join('\n') + 'hod":"b"}\n';
    const { messages, errors } = await serverWriting(text);
    await until(() => messages.length === 3);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', id: 2, result: {} }, { jsonrpc: '2.0', method: 'b' }]);
    expect(errors).toEqual([expect.stringMatching(/not a JSON-RPC 2\.0 message: \[1,2\]/), expect.stringMatching(/not a JSON-RPC 2\.0 message: .*"1\.0"/)]);
  });

  it('turns a handler that throws into an error of the connection and reads on', async () => {
    const { messages, errors, transport } = await serverWriting('{"jsonrpc":"2.0","method":"first"}\n{"jsonrpc":"2.0","method":"second"}\n');
    transport.onmessage = (message) => {
      messages.push(message);
      if (messages.length === 1) throw new Error('a handler failed');
    };
    await until(() => messages.length === 2);
    expect(errors).toEqual(['a handler failed']);
  });

  it('stops at a line over its bound, says it exceeded the maximum size, and closes', async () => {
    const { errors, closed } = await serverWriting(`{"jsonrpc":"2.0","method":"${'x'.repeat(4096)}"}\n`, 1024);
    await closed;
    expect(errors).toEqual([expect.stringMatching(/exceeded maximum size of 1024 bytes/)]);
  });
});
