import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { CallSnapshot } from '../../../shared/call';
import { consoleTheme, terminalColors } from '../../theme/theme';
import { TerminalText } from '../../format/terminalText';
import { useConsoleSync } from '../consoleContext';
import { LIVE_COLUMNS } from './CallRow';

let xterm: Promise<typeof import('@xterm/xterm')> | undefined;

/** Loads xterm.js and its stylesheet once. */
function loadXterm(): Promise<typeof import('@xterm/xterm')> {
  xterm ??= import('@xterm/xterm/css/xterm.css').then(() => import('@xterm/xterm'));
  return xterm;
}


/** The most rows a terminal grows to; past them its output scrolls inside it. */
export const MAX_TERMINAL_ROWS = 24;
/** Its width in columns. */
const TERMINAL_COLUMNS = 120;

/** Rows the output written so far takes (a last line without its end counts), at least one. */
function rowsUsed(terminal: Terminal): number {
  const buffer = terminal.buffer.active;
  return Math.max(1, buffer.baseY + buffer.cursorY + (buffer.cursorX > 0 ? 1 : 0));
}

/** Statuses of a call that can still be stopped. */
const STOPPABLE = new Set<CallSnapshot['status']>(['checking', 'awaiting-approval', 'running']);

/** Whether a call streamed output yet (re-renders once, when its first chunk arrives). */
export function useHasOutput(callId: string): boolean {
  const { outputs } = useConsoleSync();
  return useSyncExternalStore(
    (changed) => outputs.onNewCall(changed),
    () => outputs.has(callId),
    () => outputs.has(callId),
  );
}

/**
 * A read-only terminal showing what a call streams (a shell's output, colours and all), with a
 * Stop button while the call runs. The terminal takes no input: nothing typed reaches the command,
 * and it obeys nothing the output says but colours (TerminalText), so no line can be hidden.
 */
export function CallTerminal({ call }: { call: CallSnapshot }) {
  const sync = useConsoleSync();
  const host = useRef<HTMLDivElement>(null);
  const [stopping, setStopping] = useState(false);

  useEffect(() => {
    let terminal: Terminal | undefined;
    let unfollow: (() => void) | undefined;
    let unfollowTheme: (() => void) | undefined;
    let disposed = false;
    // xterm.js is a lazy chunk, loaded when the first terminal is shown.
    void loadXterm().then(({ Terminal }) => {
      if (disposed || !host.current) return;
      const theme = consoleTheme();
      terminal = new Terminal({
        disableStdin: true,
        convertEol: false,
        // Sized to the output: a line of output takes a row, up to MAX_TERMINAL_ROWS.
        rows: 1,
        cols: TERMINAL_COLUMNS,
        scrollback: 5_000,
        fontSize: 12,
        theme: terminalColors(theme.theme),
        // Text coloured like its background (SGR 30;40, or two equal true colours) is drawn readable
        // all the same; 3 leaves the usual palette colours as they are.
        minimumContrastRatio: 3,
      });
      const themed = terminal;
      unfollowTheme = theme.subscribe(() => {
        themed.options.theme = terminalColors(theme.theme);
      });
      terminal.open(host.current);
      // The output is drawn, never obeyed: no escape but colours reaches the terminal.
      const text = new TerminalText();
      const shown = terminal;
      const fit = () => {
        if (disposed) return;
        const rows = Math.min(MAX_TERMINAL_ROWS, rowsUsed(shown));
        if (rows !== shown.rows) shown.resize(TERMINAL_COLUMNS, rows);
      };
      // A line end is written only once more output follows it: the cursor stays on the last line
      // of text, so no row goes to the empty line it would wait on, and every line stays in view.
      let heldLineEnd = '';
      const draw = (chunk: string) => {
        const whole = heldLineEnd + text.push(chunk);
        heldLineEnd = /\r?\n$/.exec(whole)?.[0] ?? '';
        shown.write(whole.slice(0, whole.length - heldLineEnd.length), fit);
      };
      draw(sync.outputs.backlog(call.callId));
      unfollow = sync.outputs.follow(call.callId, draw);
    });
    return () => {
      disposed = true;
      unfollow?.();
      unfollowTheme?.();
      terminal?.dispose();
    };
  }, [sync, call.callId]);

  const stoppable = STOPPABLE.has(call.status);
  return (
    <div className="call-terminal">
      <div ref={host} className="call-terminal-screen" data-testid="call-terminal" aria-label="Output" />
      {stoppable ? (
        <button
          type="button"
          className="stop-call"
          data-testid="stop-call"
          disabled={stopping}
          onClick={() => {
            setStopping(true);
            void sync.stopCall(call.callId).finally(() => setStopping(false));
          }}
        >
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      ) : null}
    </div>
  );
}

/**
 * The row under a call in the Live table: its terminal, once the call streams output (or while a
 * shell_exec call runs); nothing otherwise. A call still waiting for a person has no output to show
 * and nothing to stop: its prompt is where it is answered.
 */
export function CallOutputRow({ call }: { call: CallSnapshot }) {
  const hasOutput = useHasOutput(call.callId);
  const running = call.tool === 'shell_exec' && call.status === 'running';
  if (!hasOutput && !running) return null;
  return (
    <tr className="call-output-row" data-testid="call-output-row" data-call-id={call.callId}>
      <td colSpan={LIVE_COLUMNS.length}>
        <CallTerminal call={call} />
      </td>
    </tr>
  );
}
