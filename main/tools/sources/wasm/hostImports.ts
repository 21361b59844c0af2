import { GateError } from '../../../../shared/errors';
import type { Capability, SideEffect } from '../../../../shared/manifest';
import type { ManifestFile } from '../manifestFile';
import { wasmApi, type CompiledModule, type ModuleItem } from './webAssemblyApi';

/** The one import module a WASM tool may import from. */
export const HOST_MODULE = 'toolgate';

/** A host function a module may import, and what its manifest must declare to use it. */
interface HostFunction {
  /** What it does, for refusals. */
  does: string;
  /** Side effect and capability the manifest must declare (none: any tool may import it). */
  needs?: { sideEffect: SideEffect; capability: Capability };
}

/** Every host function the gate provides (the ABI in docs/wasm-tools.md). */
export const HOST_FUNCTIONS: Readonly<Record<string, HostFunction>> = {
  fail: { does: 'ends the call with an error the agent reads' },
  read_file: { does: 'reads a workspace file', needs: { sideEffect: 'FsRead', capability: 'fs:read' } },
  write_file: { does: 'writes a workspace file', needs: { sideEffect: 'FsWrite', capability: 'fs:write' } },
  http_fetch: { does: 'fetches a URL', needs: { sideEffect: 'NetRead', capability: 'net:read' } },
};

/** Host functions named in the design that this gate does not provide yet, with what to do instead. */
const NOT_PROVIDED: Readonly<Record<string, string>> = {
  env: 'WASM tools read no environment; pass a secret as an argument with a $ENV.NAME placeholder, which the gate resolves under its secret rules',
};

/** The exports every WASM tool has (see docs/wasm-tools.md). */
const REQUIRED_EXPORTS: ReadonlyArray<{ name: string; kind: ModuleItem['kind'] }> = [
  { name: 'memory', kind: 'memory' },
  { name: 'alloc', kind: 'function' },
  { name: 'run', kind: 'function' },
];

const PROVIDED = Object.keys(HOST_FUNCTIONS).map((name) => `${HOST_MODULE}.${name}`).join(', ');

/**
 * Refuses a module that imports anything but the host functions, or one its manifest does not
 * declare what for (reading files needs FsRead and fs:read, and a tool declared Pure may use none
 * of them), naming the import. Checked when the
 * tool is loaded, in the gate and again in the tool process, before any of its code runs.
 */
export function checkImports(module: CompiledModule, manifest: ManifestFile, label: string): void {
  for (const wanted of wasmApi.Module.imports(module)) {
    const name = `${wanted.module}.${wanted.name}`;
    const host = wanted.module === HOST_MODULE && wanted.kind === 'function' ? HOST_FUNCTIONS[wanted.name] : undefined;
    if (!host) {
      const instead = wanted.module === HOST_MODULE ? NOT_PROVIDED[wanted.name] : undefined;
      throw new GateError(
        'EVALIDATION',
        `${label} imports ${name} (${wanted.kind}), which the gate does not provide: ${instead ?? `a WASM tool may import only ${PROVIDED}`}`,
        { import: name },
      );
    }
    const needs = host.needs;
    if (needs && (!manifest.sideEffects.includes(needs.sideEffect) || !manifest.capabilities.includes(needs.capability))) {
      throw new GateError(
        'EVALIDATION',
        `${label} imports ${name}, which ${host.does}, but its manifest does not declare it: add "${needs.sideEffect}" to sideEffects and "${needs.capability}" to capabilities`,
        { import: name },
      );
    }
    if (needs && manifest.determinism === 'Pure') {
      throw new GateError(
        'EVALIDATION',
        `${label} imports ${name}, which ${host.does}, but its manifest declares it Pure: a Pure tool's output depends on its input alone; declare "Deterministic" (or less)`,
        { import: name },
      );
    }
    if (wanted.name === 'http_fetch' && (manifest.urlArguments ?? []).length === 0) {
      throw new GateError(
        'EVALIDATION',
        `${label} imports ${name}, but its manifest names no urlArguments: it may fetch only from hosts its call's arguments name, which the gate checks against its grants`,
        { import: name },
      );
    }
  }
  for (const exported of wasmApi.Module.exports(module)) {
    if (exported.name.startsWith('__toolgate')) throw new GateError('EVALIDATION', `${label} exports ${exported.name}: names starting with __toolgate are the gate's own`);
  }
  for (const required of REQUIRED_EXPORTS) {
    const found = wasmApi.Module.exports(module).find((item) => item.name === required.name);
    if (found?.kind !== required.kind) {
      throw new GateError('EVALIDATION', `${label} does not export the ${required.kind} \`${required.name}\` every WASM tool exports (see docs/wasm-tools.md)`);
    }
  }
}
