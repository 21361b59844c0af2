import type { ToolError } from '../../shared/errors';
import { bubblewrapArguments, SHM_BYTES, TMP_BYTES, type SandboxInfo, type SandboxLayout, type SandboxProfile } from './sandbox';
import { seccompFilter } from './seccompFilter';
import type { Isolation, RunOutcome, SandboxRootView } from './toolProcessPool';
import { GUARD_SCAN_LIMIT, rollBackGuarded, scanGuarded, type GuardScan, type RolledBack } from './workspaceGuard';

/**
 * How each sandbox profile's tool processes are started: in bubblewrap under the seccomp program,
 * or bare when there is no sandbox. A profile that may write the workspace has its protected
 * entries scanned before each call (held by mounts) and after it (what was created is removed). A
 * tool that starts processes gets a sandbox for that one call: nothing it leaves running, in /tmp or
 * in /dev/shm reaches the next call, and its sandbox's init dies with it.
 */
export function sandboxIsolation(sandbox: SandboxInfo, layout: SandboxLayout): (profile: SandboxProfile) => Isolation {
  const filter = seccompFilter();
  let singleUseSandboxes = 0;
  return (profile) => {
    if (sandbox.kind === 'none') return { key: 'bare' };
    const network = profile.network ? 'net' : 'nonet';
    // Arguments are worked out only when a process is started, not for every call.
    const wrapper = (guard?: GuardScan) => ({ command: sandbox.command, args: bubblewrapArguments(profile, layout, guard), seccompFilter: filter });
    if (!profile.writeWorkspace) return { key: `ro:${network}`, get wrapper() { return wrapper(); } };
    const before = scanGuarded(layout.workspace, layout.granted);
    if (!before.complete) return { key: 'refused', refusal: tooLargeToGuard() };
    const rollBack = (guard: GuardScan) => (tool: string, outcome: RunOutcome) =>
      withRollBack(tool, outcome, rollBackGuarded(layout.workspace, guard, layout.granted));
    if (profile.spawnsProcesses) {
      // Scanned again as its process starts: a call that waited for one must not count what the
      // person created meanwhile as its own.
      let atStart = before;
      return {
        key: `single-use:${++singleUseSandboxes}`,
        singleUse: true,
        get wrapper() {
          atStart = scanGuarded(layout.workspace, layout.granted);
          return wrapper(atStart);
        },
        afterCall: (tool, outcome, sandboxRoot) => rollBack(atStart)(tool, filledScratch(tool, outcome, sandboxRoot)),
      };
    }
    // A reused process holds the entries that existed when it started: when they change, so does the key.
    const held = before.entries.map((entry) => `${entry.hold}=${entry.relative}`);
    return { key: ['rw', network, ...held].join(':'), get wrapper() { return wrapper(before); }, afterCall: rollBack(before) };
  };
}

/** Less free space than this in a scratch folder when the call ends means the call ran it full. */
const FULL_MARGIN_BYTES = 1024 * 1024;

/** A call that ended with its /tmp or /dev/shm full fails with EQUOTA: writes past the cap failed inside it. */
function filledScratch(tool: string, outcome: RunOutcome, sandboxRoot: SandboxRootView | undefined): RunOutcome {
  const caps: Record<string, number> = { '/tmp': TMP_BYTES, '/dev/shm': SHM_BYTES };
  const full = Object.entries(sandboxRoot?.freeBytes ?? {}).find(([, free]) => free < FULL_MARGIN_BYTES);
  if (!full) return outcome;
  const [folder] = full;
  const cap = `${caps[folder]! / (1024 * 1024)} MiB`;
  const error: ToolError = {
    code: 'EQUOTA',
    message:
      `${tool} filled its private ${folder} (${cap}, the most one call may keep there): writes past it failed with ` +
      `"No space left on device"; write large files into the workspace instead`,
    details: { folder, capBytes: caps[folder], toolResult: toolResultOf(outcome) },
  };
  return { ok: false, error, ...(outcome.usage ? { usage: outcome.usage } : {}) };
}

function toolResultOf(outcome: RunOutcome): unknown {
  return outcome.ok ? { ok: true, data: outcome.data } : { ok: false, error: outcome.error };
}

function tooLargeToGuard(): ToolError {
  return {
    code: 'EQUOTA',
    message: `the workspace holds more than ${GUARD_SCAN_LIMIT} entries, too many to prove a call leaves its protected paths (.git, .vscode, …) alone; pick a smaller workspace`,
  };
}

/** A call that changed protected entries fails, saying what was undone and which grant would allow it. */
function withRollBack(tool: string, outcome: RunOutcome, rolledBack: RolledBack[]): RunOutcome {
  if (rolledBack.length === 0) return outcome;
  const listed = rolledBack.map((entry) => `${entry.path} (${entry.change}; ${entry.why})`).join(', ');
  const grants = [...new Set(rolledBack.map((entry) => entry.grant))];
  const error: ToolError = {
    code: 'EPERMISSION',
    message:
      `${tool} ran, but the sandbox undid what it did to protected paths: ${listed}. ` +
      `Nothing else it did was undone. Start the gate with ${grants.map((grant) => `--grant ${grant}`).join(' ')} to allow it`,
    details: { rolledBack, toolResult: toolResultOf(outcome) },
  };
  return { ok: false, error, ...(outcome.usage ? { usage: outcome.usage } : {}) };
}
