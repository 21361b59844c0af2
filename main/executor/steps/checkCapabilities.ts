import { lstatSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Capability, ToolManifest } from '../../../shared/manifest';
import { GateError } from '../../../shared/errors';
import {
  defaultPort,
  effectivePort,
  grantTarget,
  needsExactGrant,
  parseFetchUrl,
  parseHostScope,
  scopeCoversHost,
  scopeCoversUrl,
} from '../../tools/netAccess';
import { findProtectedBelow, protectedMatch, slashed, type ProtectedMatch } from '../../tools/protectedPaths';
import { confinePath, type ConfinedPath } from '../../tools/workspacePath';
import { StepFailure } from './stepFailure';

/** What the capability step found, for the audit. */
export interface CapabilityReport {
  required: Capability[];
  paths: Array<{ argument: string; requested: string; resolved: string }>;
  /** The host of each URL argument and the grant that covered it (tools with urlArguments only). */
  urls?: UrlGrant[];
}

/** Whether a granted capability covers a required one (a grant without scope covers every scope). */
export function covers(grant: Capability, required: Capability): boolean {
  const [grantKind, grantAccess, ...grantScope] = grant.split(':');
  const [kind, access, ...scope] = required.split(':');
  if (grantKind !== kind || grantAccess !== access) return false;
  if (grantScope.length === 0) return true;
  const granted = grantScope.join(':');
  const wanted = scope.join(':');
  if (granted.endsWith('/**')) return wanted === granted.slice(0, -3) || wanted.startsWith(granted.slice(0, -2));
  return granted === wanted;
}

/**
 * Every capability the tool declares must be granted to the gate, and every path argument must
 * stay inside the workspace (`..`, absolute paths and symlinks that leave it are refused). A tool
 * that writes files may touch a protected path (`.git`, `.vscode`, …: see protectedPaths.ts) only
 * under an explicit scoped grant such as `fs:write:.vscode/**`; the plain `fs:write` does not do.
 */
export function checkCapabilities(
  manifest: ToolManifest,
  input: unknown,
  grants: readonly Capability[],
  workspace: string,
): CapabilityReport | StepFailure {
  const urls = checkUrlArguments(manifest, input, grants);
  if (urls instanceof StepFailure) return urls;
  const missing = manifest.capabilities.filter(
    (required) => !decidedPerUrl(manifest, required) && !grants.some((grant) => covers(grant, required)),
  );
  if (missing.length > 0) {
    return StepFailure.of(
      'capability',
      'EPERMISSION',
      `${manifest.name} needs ${missing.join(', ')}, which this gate does not grant; start the gate with --grant ${missing[0]} to allow it`,
      { missing },
    );
  }
  const paths: CapabilityReport['paths'] = [];
  for (const argument of manifest.pathArguments) {
    const requested = (input as Record<string, unknown>)[argument];
    if (typeof requested !== 'string') continue;
    let confined: ConfinedPath;
    try {
      confined = confinePath(workspace, requested, argument);
    } catch (error) {
      if (error instanceof GateError) return new StepFailure('capability', error.toToolError());
      throw error;
    }
    paths.push({ argument, requested, resolved: confined.relative || '.' });
    if (manifest.sideEffects.includes('FsWrite')) {
      const wholeFolder = !manifest.workingDirectoryArguments?.includes(argument);
      const refused = checkProtected(manifest.name, workspace, requested, confined, grants, wholeFolder);
      if (refused) return refused;
    }
  }
  return { required: manifest.capabilities, paths, ...(urls.length > 0 ? { urls } : {}) };
}

/** One URL argument's host and port, and the grant that let it through. */
export interface UrlGrant {
  argument: string;
  host: string;
  /** The port the URL connects to (its scheme's default when it names none). */
  port: number;
  grant: Capability;
}

/** A bare `net:<access>` of a tool with URL arguments is scoped per call, by checkUrlArguments. */
function decidedPerUrl(manifest: ToolManifest, required: Capability): boolean {
  return (manifest.urlArguments?.length ?? 0) + (manifest.endpoints?.length ?? 0) > 0 && /^net:[a-z]+$/.test(required);
}

/** Each URL a call reaches: its URL arguments' values, and the tool's fixed endpoints (named `endpoint`). */
function reachedUrls(manifest: ToolManifest, input: unknown): Array<{ argument: string; requested: unknown }> {
  const fromInput = (manifest.urlArguments ?? []).map((argument) => ({ argument, requested: (input as Record<string, unknown>)[argument] }));
  return [...fromInput, ...(manifest.endpoints ?? []).map((requested) => ({ argument: 'endpoint', requested }))];
}

/**
 * Each URL argument (and fixed endpoint) must be http(s) and its host and port covered by a grant of every bare
 * `net:<access>` the tool declares: `net:read:<host>[:port]` exactly, a `*.domain[:port]` wildcard,
 * or a bare `net:read`; a grant without a port covers the scheme's default port only. Loopback and
 * private address literals and localhost need a grant naming them exactly (SSRF).
 */
export function checkUrlArguments(manifest: ToolManifest, input: unknown, grants: readonly Capability[]): UrlGrant[] | StepFailure {
  const found: UrlGrant[] = [];
  const needed = manifest.capabilities.filter((required) => decidedPerUrl(manifest, required));
  for (const { argument, requested } of reachedUrls(manifest, input)) {
    if (typeof requested !== 'string') continue;
    let url: URL;
    try {
      url = parseFetchUrl(requested);
    } catch (error) {
      if (error instanceof GateError) return new StepFailure('capability', error.toToolError());
      throw error;
    }
    const host = url.hostname;
    const port = effectivePort(url);
    for (const required of needed) {
      const grant = grants.find((candidate) => grantCoversUrl(candidate, required, url));
      if (grant === undefined) {
        const flag = `${required}:${grantTarget(url)}`;
        const where = url.port === '' ? host : `${host} port ${port}`;
        const why = whyNotCovered(required, url, grants);
        return StepFailure.of(
          'capability',
          'EPERMISSION',
          `${manifest.name} may not reach ${where}: no ${required} grant covers it${why}; start the gate with --grant ${flag} to allow it`,
          { argument, host, port, missing: [flag] },
        );
      }
      found.push({ argument, host, port, grant });
    }
  }
  return found;
}

/** Why no grant covers a URL, as a parenthesis for the refusal ('' when it is simply not granted). */
function whyNotCovered(required: Capability, url: URL, grants: readonly Capability[]): string {
  const host = url.hostname;
  const unreadable = grants.filter((grant) => {
    const scope = grantScope(grant, required);
    return typeof scope === 'string' && parseHostScope(scope) === undefined;
  });
  if (unreadable.length > 0) {
    return ` (${unreadable.join(', ')} covers nothing: a port must be 1–65535 or *, and an IPv6 address with a port goes in brackets, e.g. [::1]:8080)`;
  }
  if (needsExactGrant(host)) return ' (a loopback or private address is reached only when granted by name)';
  if (grants.some((grant) => grantCoversHost(grant, required, host))) {
    const scheme = url.protocol.slice(0, -1);
    return ` (no grant for ${host} names port ${effectivePort(url)}, and one without a port covers only ${defaultPort(url.protocol)} for ${scheme}: --grant ${required}:host:port)`;
  }
  return '';
}

/** Whether a grant of the required `net:<access>` covers the URL's host and port. */
function grantCoversUrl(grant: Capability, required: Capability, url: URL): boolean {
  const scope = grantScope(grant, required);
  return scope !== null && scopeCoversUrl(scope, url);
}

/** Whether a grant covers the host on some port (to say that only the port was missing). */
function grantCoversHost(grant: Capability, required: Capability, host: string): boolean {
  const scope = grantScope(grant, required);
  const parsed = scope === undefined ? { host: '*' } : scope === null ? undefined : parseHostScope(scope);
  return parsed !== undefined && scopeCoversHost(parsed.host, host);
}

/** The scope of a grant of `required` (undefined: none, covering every host), or null for a grant of something else. */
function grantScope(grant: Capability, required: Capability): string | undefined | null {
  const [kind, access, ...scope] = grant.split(':');
  if (`${kind}:${access}` !== required) return null;
  return scope.length > 0 ? scope.join(':') : undefined;
}

/**
 * Refuses a writing tool's path that is, lies in or (`wholeFolder`: the tool changes the folder as a
 * whole, e.g. deletes it) holds a protected path not covered by a scoped grant.
 */
function checkProtected(
  tool: string,
  workspace: string,
  requested: string,
  confined: ConfinedPath,
  grants: readonly Capability[],
  wholeFolder: boolean,
): StepFailure | undefined {
  const lexical = slashed(relative(workspace, resolve(workspace, requested)));
  const resolved = slashed(confined.relative);
  const hits: Array<{ match: ProtectedMatch; changed: string }> = [];
  for (const path of new Set([lexical, resolved])) {
    const match = protectedMatch(path);
    if (match) hits.push({ match, changed: path });
  }
  if (wholeFolder && confined.exists && lstatSync(confined.absolute).isDirectory()) {
    // Whatever a folder holds goes with it (a recursive delete): protected entries inside count too.
    const below = findProtectedBelow(confined.absolute, resolved);
    if (!below.complete) {
      return StepFailure.of(
        'capability',
        'EPERMISSION',
        `${tool} may not change ${resolved || '.'}: it holds too many entries to prove it contains no protected path (.git, .vscode, …); change smaller parts of it`,
        { path: resolved, rule: 'protected:unchecked' },
      );
    }
    for (const match of below.found) hits.push({ match, changed: match.protectedPath });
  }
  for (const { match, changed } of hits) {
    const required = `fs:write:${changed}`;
    if (grants.some((grant) => grant.split(':').length > 2 && covers(grant, required))) continue;
    return StepFailure.of(
      'capability',
      'EPERMISSION',
      `${tool} may not change ${changed}: rule protected:${match.rule.name} guards ${match.protectedPath} because ${match.rule.why}; ` +
        `start the gate with --grant ${match.grant} to allow it`,
      { path: changed, rule: `protected:${match.rule.name}`, grant: match.grant },
    );
  }
  return undefined;
}
