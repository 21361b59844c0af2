import type { ToolError } from '../../shared/errors';
import { bubblewrapArguments, SHM_BYTES, TMP_BYTES, type SandboxInfo, type SandboxLayout, type SandboxProfile } from './sandbox';
import { seccompFilter } from './seccompFilter';
import type { SandboxRootView } from './sandboxRootView';
import type { Isolation, RunOutcome } from './toolCall';
import { GUARD_SCAN_LIMIT, rollBackGuarded, scanGuarded, type GuardScan, type RolledBack } from './workspaceGuard';

/**
 * How each sandbox profile's tool processes are started: in bubblewrap under the seccomp program,
 * or bare when there is no sandbox. A profile that may write the workspace has its protected
 * entries scanned before each call (held by mounts) and after it (what was created is removed). A
 * tool that starts processes gets a sandbox for that one call: nothing it leaves running, in /tmp or
 * in /dev/shm reaches the next call, and its sandbox's init dies with it. Without a sandbox, the
 * protected entries that writing and process-spawning calls create are still undone after them.
 */
export function sandboxIsolation(sandbox: SandboxInfo, layout: SandboxLayout): (profile: SandboxProfile) => Isolation {
  const filter = seccompFilter();
  const isolate = (profile: SandboxProfile): Isolation => {
    const bare = sandbox.kind === 'none';
    // Bare, nothing holds the workspace read-only: a process-spawning call may write it whatever it declares.
    const writes = profile.writeWorkspace || (bare && profile.spawnsProcesses);
    let guard = writes ? scanGuarded(layout.workspace, layout.granted) : undefined;
    if (guard && !guard.complete) return { key: 'refused', refusal: tooLargeToGuard() };
    const rollBack = (tool: string, outcome: RunOutcome) =>
      guard ? withRollBack(tool, outcome, rollBackGuarded(layout.workspace, guard, layout.granted)) : outcome;
    // Without a sandbox no mount holds an existing entry; what a call creates is still undone.
    if (bare) return { key: 'bare', ...(guard ? { afterCall: rollBack } : {}) };
    // Arguments are worked out only when a process is started, not for every call.
    const wrapper = (guard?: GuardScan) => ({
      command: sandbox.command,
      args: bubblewrapArguments(profile, layout, guard, sandbox.sizedTmpfs ?? false),
      seccompFilter: filter,
    });
    // A process holds the entries that existed when it started: when they change, so does the key.
    const held = guard?.entries.map((entry) => `${entry.hold}=${entry.relative}`) ?? [];
    const key = [profile.writeWorkspace ? 'rw' : 'ro', profile.network ? 'net' : 'nonet', ...held].join(':');
    if (!profile.spawnsProcesses) {
      return { key, get wrapper() { return wrapper(guard); }, ...(guard ? { afterCall: rollBack } : {}) };
    }
    return {
      key: `single-use:${key}`,
      singleUse: true,
      get wrapper() {
        // Scanned again as the process starts: a call that waited for one must not count what the
        // person created meanwhile as its own.
        if (guard) guard = scanGuarded(layout.workspace, layout.granted);
        return wrapper(guard);
      },
      afterCall: (tool, outcome, sandboxRoot) => rollBack(tool, filledScratch(tool, outcome, sandboxRoot)),
      // The next call of this profile finds a fresh sandbox started ahead, as a reused one would be.
      successor: () => isolate(profile),
    };
  };
  return isolate;
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
