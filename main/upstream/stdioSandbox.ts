import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { GateError } from '../../shared/errors';
import { countOf } from '../../shared/plural';
import type { UpstreamSandbox, UpstreamServerConfig } from '../../shared/upstream';
import { isolationArguments, type SandboxInfo } from '../hosts/sandbox';

/**
 * How a stdio upstream server is launched: inside bubblewrap when the machine has it, with an
 * environment that holds only what the person chose to give it.
 */

/** Variables every server gets from the gate's environment; anything else it gets is named in its sandbox or its env. */
const ALWAYS_PASSED = ['PATH', 'HOME', 'LANG'];
/** The gate's own settings and the agents' token: never handed to a server, whatever its entry says. */
const GATE_PREFIX = 'TOOLGATE_';

/**
 * Variables the C library reads as a program starts (glibc's list of those it ignores in setuid
 * programs, and every LD_*): given to bubblewrap they would run code or read files outside the sandbox.
 */
const LOADER_VARIABLES = new Set(['GCONV_PATH', 'GETCONF_DIR', 'GLIBC_TUNABLES', 'HOSTALIASES', 'LOCALDOMAIN', 'LOCPATH', 'MALLOC_TRACE', 'NIS_PATH', 'NLSPATH', 'RESOLV_HOST_CONF', 'RES_OPTIONS', 'TMPDIR', 'TZDIR']);

function steersLoader(name: string): boolean {
  return name.startsWith('LD_') || LOADER_VARIABLES.has(name);
}

/** The process to spawn for one server: bubblewrap wrapping its command, or its command bare. */
export interface StdioLaunch {
  command: string;
  args: string[];
  /** Its whole environment; nothing else is inherited. */
  env: Record<string, string>;
  /** Said in its state: how it is isolated, or that it is not. */
  isolation: string;
}

/**
 * The bubblewrap arguments (before `--` and the server's command) for one server's sandbox. Each
 * folder is bound where it is named but judged by its real path: one that is, or lies inside, the
 * state folder (through a symlink too) is refused, and one holding it gets it hidden at the place
 * it is bound, as well as where it really is.
 */
export function upstreamSandboxArguments(sandbox: UpstreamSandbox, home: string, sizedTmpfs: boolean): string[] {
  const args = [...isolationArguments(sandbox.network, sizedTmpfs), ...hostSocketMounts(sandbox.network)];
  const realHome = existsSync(home) ? realpathSync(home) : undefined;
  const hidden: string[] = realHome ? [realHome] : [];
  const bind = (field: 'readable' | 'writable', flag: string) => {
    for (const path of sandbox[field]) {
      if (!existsSync(path)) continue;
      const real = realpathSync(path);
      if (SANDBOX_OWN.includes(real) || real.startsWith('/proc/')) {
        throw new GateError(
          'EVALIDATION',
          `sandbox.${field} names ${path}, which the sandbox makes its own: bound from the host, ${real} would bring back the host's processes (and through /proc/PID/root the state folder), devices or sockets; name the folders the server needs instead, e.g. /home/you/project`,
        );
      }
      if (realHome && (real === realHome || real.startsWith(`${realHome}${sep}`))) {
        throw new GateError('EVALIDATION', `sandbox.${field} names ${path}, which is Toolgate's state folder (${realHome}) or inside it (audit log, token, secrets): no server may see it; remove it from servers.json`);
      }
      args.push(flag, path, path);
      if (realHome && (real === '/' || realHome.startsWith(`${real}${sep}`))) hidden.push(join(path, relative(real, realHome)));
    }
  };
  bind('readable', '--ro-bind');
  bind('writable', '--bind');
  // Last, so no binding above can bring the state folder (audit log, tokens, secrets) back into view.
  for (const path of new Set(hidden)) args.push('--tmpfs', path);
  return args;
}

/** Folders the sandbox mounts its own: the whole root, /proc, /dev, /tmp and /run. */
const SANDBOX_OWN = ['/', '/dev', '/dev/shm', '/proc', '/run', '/tmp'];

/** Where the host's services listen on Unix sockets, which no network namespace cuts off. */
const RUN = '/run';
/** Under /run, what a server with network on still may not reach: the per-user bus and agents, the system bus, docker. */
const RUN_SERVICES = ['/run/user', '/run/dbus', '/run/docker.sock', '/run/podman'];

/**
 * Mounts that hide the host's Unix sockets. The session bus (/run/user/UID/bus) lets a caller have
 * systemd start any command outside the sandbox, and docker's socket is root: a server with network
 * off sees an empty /run; one with network on keeps the rest of /run (DNS) without those services.
 */
function hostSocketMounts(network: boolean): string[] {
  if (!network) return existsSync(RUN) ? ['--tmpfs', RUN] : [];
  return RUN_SERVICES.filter((path) => existsSync(path)).flatMap((path) => (statSync(path).isDirectory() ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
}

/**
 * The environment a server runs with: PATH, HOME and LANG, the variables its sandbox names taken from
 * the gate's environment, and its own `env` (secrets already resolved). A name starting with
 * TOOLGATE_ in its env is refused; in its sandbox's list it is skipped. (Inside bubblewrap the server
 * also finds PWD, which bubblewrap sets to the folder it starts in.)
 */
export function upstreamEnvironment(server: string, sandbox: UpstreamSandbox, env: Record<string, string>, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const own = Object.keys(env).find((name) => name.startsWith(GATE_PREFIX));
  if (own) {
    throw new GateError('EVALIDATION', `server ${server}: env.${own} is one of the gate's own settings (${GATE_PREFIX}*), which no server is given; rename it in servers.json`);
  }
  const result: Record<string, string> = {};
  for (const name of [...ALWAYS_PASSED, ...sandbox.env]) {
    const value = source[name];
    if (value !== undefined && !name.startsWith(GATE_PREFIX)) result[name] = value;
  }
  return { ...result, ...env };
}

/** Where and how one stdio server runs. `env` is its whole environment, secrets resolved. */
export function stdioLaunch(
  server: { name: string; command: string; args: string[]; sandbox: UpstreamSandbox },
  env: Record<string, string>,
  home: string,
  sandboxInfo: SandboxInfo,
): StdioLaunch {
  if (sandboxInfo.kind === 'none') {
    return { command: server.command, args: server.args, env, isolation: `runs without a sandbox: ${sandboxInfo.reason}` };
  }
  const sandboxArgs = upstreamSandboxArguments(server.sandbox, home, sandboxInfo.sizedTmpfs ?? false);
  const missing = [...server.sandbox.readable, ...server.sandbox.writable].filter((path) => !existsSync(path));
  // bubblewrap itself runs outside the sandbox with this environment: what steers its dynamic loader
  // (LD_PRELOAD would load a library into it unconfined) is set inside the sandbox instead.
  const outside = Object.fromEntries(Object.entries(env).filter(([name]) => !steersLoader(name)));
  const inside = Object.entries(env).filter(([name]) => steersLoader(name)).flatMap(([name, value]) => ['--setenv', name, value]);
  return {
    command: sandboxInfo.command,
    args: [...sandboxArgs, ...inside, '--', server.command, ...server.args],
    env: outside,
    isolation:
      `runs in bubblewrap (network ${server.sandbox.network ? 'on' : 'off'}, ${countOf(server.sandbox.writable.length, 'writable folder')})` +
      (missing.length > 0 ? `; not mounted, as they do not exist: ${missing.join(', ')}` : ''),
  };
}

/**
 * Why a sandboxed server may not find its own files: its /tmp is the sandbox's own, so a command or
 * argument under the host's /tmp is not there unless a `readable` folder brings it back.
 */
export function hiddenTmpHint(config: UpstreamServerConfig, sandbox: SandboxInfo): string {
  if (config.transport !== 'stdio' || sandbox.kind === 'none') return '';
  const underTmp = (path: string) => path === '/tmp' || path.startsWith('/tmp/');
  const shown = config.sandbox.readable.concat(config.sandbox.writable);
  const hidden = [config.command, ...config.args].filter((word) => underTmp(word) && !shown.some((folder) => word === folder || word.startsWith(`${folder}/`)));
  if (hidden.length === 0) return '';
  return `. Its sandbox has a /tmp of its own, so ${hidden.join(', ')} is not there: add the folder holding it (and what it loads, e.g. its node_modules) to sandbox.readable in servers.json`;
}
