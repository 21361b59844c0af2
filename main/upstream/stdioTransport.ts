import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import { serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../shared/jsonLimits';
import { processTree, signalAll } from '../hosts/processTree';
import { MessageTooLarge } from './messageBound';

/** How the gate starts a stdio server: the command, and the whole environment it gets (nothing else is inherited). */
export interface StdioServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** The longest line (one JSON-RPC message) read: past it the transport reports a MessageTooLarge and closes. */
  maxBufferSize: number;
}

/** The pending buffer's first size, and the largest one kept for the next line (see GateStdioTransport.pending). */
const MIN_PENDING_BYTES = 64 * 1024;
const KEPT_PENDING_BYTES = 1024 * 1024;

/** How long a server has to exit after its stdin closed, and then after SIGTERM, before it is killed. */
const CLOSE_GRACE_MS = 2000;

/**
 * A stdio server's pipes as an MCP transport: the SDK's StdioClientTransport's spawn, line framing,
 * bound on a line and close, with two differences.
 * - The probe stays in place. Given the SDK's transport, the client's 'auto' negotiation would run
 *   `server/discover` on a second copy of the server spawned for the probe and then start the real
 *   one: two starts of a program that may act on starting, a probe whose stderr is lost, and a
 *   process the gate's sandbox teardown never tracked. Here the probe is the first message on the
 *   server's own pipe (a 2025 server answers it with "method not found", or says nothing until the
 *   probe times out, and gets `initialize` after).
 * - A line is parsed as JSON and not also checked against the SDK's JSON-RPC schema: the client
 *   checks each message it reads with the same schemas again, and the gate's own tools/call answers
 *   (directUpstreamCall.ts) are checked where they are taken. On a gateway call that second zod
 *   parse was a sixth of what the gate spent reading a server's answer.
 */
export class GateStdioTransport implements Transport {
  private process: ChildProcess | undefined;
  /**
   * Bytes read past the last whole line: the first `pendingBytes` of a buffer that doubles as it
   * fills, so each byte of a line is copied about twice however many chunks it came in (a 4 MB
   * line joined afresh at every chunk cost some 130 MB of copies), and only a new chunk is searched
   * for the line's end. A buffer grown past KEPT_PENDING_BYTES is let go once its line ended.
   */
  private pending = Buffer.alloc(0);
  private pendingBytes = 0;
  private readonly stderrStream = new PassThrough();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly launch: StdioServerLaunch) {}

  start(): Promise<void> {
    if (this.process) throw new Error('the stdio transport was already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, this.launch.args, { env: this.launch.env, stdio: ['pipe', 'pipe', 'pipe'], shell: false, cwd: this.launch.cwd });
      this.process = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.process = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderrStream);
    });
  }

  /** The server's stderr, readable from before it starts. */
  get stderr(): Stream {
    return this.stderrStream;
  }

  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin;
      if (!stdin) return reject(new Error('Not connected'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Ends the server and whatever it started. The gate ends an instance's tree itself before it gets
   * here (see end() in upstreamConnection); this covers the client closing the transport on its own,
   * as it does when a connect fails mid-negotiation: the tree is noted while its root lives.
   */
  async close(): Promise<void> {
    const tree = this.pid === null ? [] : processTree(this.pid);
    await this.endProcess();
    signalAll(tree, 'SIGKILL');
  }

  /** Closes its stdin, then asks it to stop, then kills it, as the SDK's transport does. */
  private async endProcess(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const grace = () => new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      try {
        child.stdin?.end();
      } catch {
        // Its stdin is already gone.
      }
      await Promise.race([closed, grace()]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([closed, grace()]);
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.dropPending();
  }

  /** Takes a chunk of stdout: each whole line that is JSON-RPC goes to onmessage; a line that is not JSON is skipped, as the SDK skips it. */
  private read(chunk: Buffer): void {
    if (this.pendingBytes + chunk.length > this.launch.maxBufferSize) {
      this.dropPending();
      // Nothing more of it is read: the rest of the message (and anything after) would only be read
      // to be thrown away, for as long as the server takes to end, and each next maxBufferSize of it
      // would be refused again.
      this.process?.stdout?.destroy();
      this.onerror?.(new MessageTooLarge(this.launch.maxBufferSize));
      void this.close().catch(() => {});
      return;
    }
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, end);
      let bytes = tail;
      if (this.pendingBytes > 0) {
        this.keep(tail);
        bytes = this.pending.subarray(0, this.pendingBytes);
      }
      this.pendingBytes = 0;
      start = end + 1;
      const line = bytes.toString('utf8').replace(/\r$/, '');
      if (this.pending.length > KEPT_PENDING_BYTES) this.dropPending();
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isJsonObject(message) || message.jsonrpc !== '2.0') {
        this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`));
        continue;
      }
      // Whatever a handler throws on one message is an error of the connection, never the gate's crash, and the next line is read.
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** Appends bytes of a line still open to the pending buffer, doubling it when they do not fit. */
  private keep(bytes: Buffer): void {
    const needed = this.pendingBytes + bytes.length;
    if (needed > this.pending.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.pending.length * 2, MIN_PENDING_BYTES));
      this.pending.copy(grown, 0, 0, this.pendingBytes);
      this.pending = grown;
    }
    bytes.copy(this.pending, this.pendingBytes);
    this.pendingBytes = needed;
  }

  private dropPending(): void {
    this.pending = Buffer.alloc(0);
    this.pendingBytes = 0;
  }
}
