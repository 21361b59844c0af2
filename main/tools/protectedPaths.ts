import { lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** A name in the workspace whose change runs code or reconfigures the agent: mutating tools need an explicit grant. */
export interface ProtectedRule {
  /** The name guarded wherever it appears in a path (compared case-insensitively); `a/b` names a folder inside a folder. */
  readonly name: string;
  /** Why it is guarded, for the refusal. */
  readonly why: string;
  /** Whether it is a folder (everything under it is guarded) rather than one file. */
  readonly folder: boolean;
  /**
   * Inside an existing one, the entries a sandboxed process may not change (the rest stays writable):
   * for `.git`, what makes git run code, so that an approved `git commit` can still write objects and refs.
   */
  readonly codeInside?: readonly string[];
}

/**
 * The protected names, one list for the file tools and the sandbox (seed 004 path policies): the
 * gate's own state, what agents and editors obey, and what a shell, git, CI or a package manager
 * runs on its own. Left open on purpose, because ordinary work must write them: `.gitattributes`
 * (it only names filters and drivers, whose commands live in the guarded git config), Makefiles,
 * package.json scripts and `node_modules/.bin` shims (which `npm install` writes), which run only
 * when the person runs them.
 */
export const PROTECTED_RULES: readonly ProtectedRule[] = [
  {
    name: '.git',
    folder: true,
    why: 'git runs its hooks and obeys its config',
    // config: core.hooksPath, core.fsmonitor, aliases, filters; commondir: another git folder's config
    // and hooks; modules and worktrees: git folders of their own.
    codeInside: ['config', 'config.worktree', 'hooks', 'commondir', 'modules', 'worktrees', 'info/attributes'],
  },
  { name: '.toolgate', folder: true, why: "it is the name of the gate's state folder (audit log, token, secrets)" },
  { name: '.mcp.json', folder: false, why: 'it tells agents which MCP servers to start' },
  { name: '.claude', folder: true, why: 'it configures the agent (hooks, permissions, commands)' },
  { name: '.cursor', folder: true, why: 'it configures the Cursor agent (MCP servers it starts, rules it follows)' },
  { name: '.gemini', folder: true, why: 'it configures the Gemini agent (MCP servers it starts, settings)' },
  { name: '.zed', folder: true, why: 'the editor runs its tasks and obeys its settings' },
  { name: '.hg', folder: true, why: 'Mercurial runs the hooks its hgrc names', codeInside: ['hgrc'] },
  { name: '.cargo/config.toml', folder: false, why: 'cargo obeys it for every build (runners, linkers, aliases)' },
  { name: '.cargo/config', folder: false, why: 'cargo obeys it for every build (runners, linkers, aliases)' },
  { name: '.mise.toml', folder: false, why: 'mise runs the tasks and hooks it names when a shell enters the folder' },
  { name: '.vscode', folder: true, why: 'the editor runs its tasks and obeys its settings' },
  { name: '.idea', folder: true, why: 'the editor runs its run configurations and obeys its settings' },
  { name: '.devcontainer', folder: true, why: 'the editor runs its commands when it opens the folder in a container' },
  { name: '.envrc', folder: false, why: 'direnv runs it when a shell enters the folder' },
  { name: '.github/workflows', folder: true, why: 'CI runs its workflows with the repository secrets' },
  { name: '.github/actions', folder: true, why: 'CI workflows run its actions with the repository secrets' },
  { name: '.gitmodules', folder: false, why: 'git fetches and checks out the repositories it names' },
  { name: '.husky', folder: true, why: 'git runs its hooks on commit and push' },
  { name: '.pre-commit-config.yaml', folder: false, why: 'the pre-commit hook runs the commands it names' },
  { name: '.npmrc', folder: false, why: 'npm obeys it for every script (script-shell, node-options)' },
  { name: '.yarnrc', folder: false, why: 'yarn obeys it for every command' },
  { name: '.yarnrc.yml', folder: false, why: 'yarn runs the yarnPath it names for every command' },
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.inputrc'].map((name) => shellStartup(name, 'bash')),
  ...['.zshrc', '.zprofile', '.zshenv', '.zlogin', '.zlogout'].map((name) => shellStartup(name, 'zsh')),
  { name: '.config/fish', folder: true, why: 'fish runs its startup files in every shell' },
];

function shellStartup(name: string, shell: string): ProtectedRule {
  return { name, folder: false, why: `${shell} runs it when a shell starts (a workspace that is a home folder)` };
}

/** A path that falls under a protected rule. */
export interface ProtectedMatch {
  readonly rule: ProtectedRule;
  /** Workspace-relative path (with /) of the protected file or folder itself, e.g. `sub/.git`. */
  readonly protectedPath: string;
  /** The scoped grant that allows mutating tools to change it, e.g. `fs:write:sub/.git/**`. */
  readonly grant: string;
}

/** The protected file or folder a workspace-relative path is (or lies in), if any. */
export function protectedMatch(relativePath: string): ProtectedMatch | undefined {
  const parts = relativePath.split(/[/\\]+/).filter((part) => part !== '' && part !== '.');
  const lower = parts.map((part) => part.toLowerCase());
  for (let index = 0; index < parts.length; index++) {
    const rule = PROTECTED_RULES.find((candidate) => startsWithRule(lower, index, candidate));
    if (!rule) continue;
    const protectedPath = parts.slice(0, index + ruleParts(rule).length).join('/');
    return { rule, protectedPath, grant: `fs:write:${protectedPath}${rule.folder ? '/**' : ''}` };
  }
  return undefined;
}

function ruleParts(rule: ProtectedRule): string[] {
  return rule.name.split('/');
}

function startsWithRule(lowerParts: readonly string[], index: number, rule: ProtectedRule): boolean {
  return ruleParts(rule).every((part, offset) => lowerParts[index + offset] === part);
}

/** The last names of the rules: a walk needs to look closer only at entries with one of these names. */
const RULE_ENDINGS = new Set(PROTECTED_RULES.map((rule) => ruleParts(rule).at(-1)!));

/** Whether an entry with this name may be (the end of) a protected path. */
export function mayBeProtected(name: string): boolean {
  return RULE_ENDINGS.has(name.toLowerCase());
}

/** What a search for protected entries under a folder found. */
export interface ProtectedSearch {
  /** Protected files and folders found (not searched further inside). */
  readonly found: ProtectedMatch[];
  /** False when the folder held more entries than the search may visit: the rest is unknown. */
  readonly complete: boolean;
}

/**
 * Finds protected files and folders below `absoluteDir` (whose workspace-relative path is
 * `relativeDir`), without following symlinks, visiting at most `limit` entries. Deleting a folder
 * deletes whatever protected entries it holds, so those need their grant too.
 */
export function findProtectedBelow(absoluteDir: string, relativeDir: string, limit = 200_000): ProtectedSearch {
  const found: ProtectedMatch[] = [];
  const stack: Array<{ absolute: string; relative: string }> = [{ absolute: absoluteDir, relative: relativeDir }];
  let visited = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir.absolute);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++visited > limit) return { found, complete: false };
      const relative = dir.relative === '' ? name : `${dir.relative}/${name}`;
      const match = mayBeProtected(name) ? protectedMatch(relative) : undefined;
      if (match) {
        found.push(match);
        continue;
      }
      const absolute = join(dir.absolute, name);
      try {
        if (lstatSync(absolute).isDirectory()) stack.push({ absolute, relative });
      } catch {
        // Gone meanwhile: nothing to find there.
      }
    }
  }
  return { found, complete: true };
}

/** A workspace-relative path with / separators, as grants and rules spell it. */
export function slashed(relativePath: string): string {
  return relativePath.split(sep).join('/');
}
