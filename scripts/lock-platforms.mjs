#!/usr/bin/env node
// Puts other platforms' optional packages back into package-lock.json, so `npm ci` works from the
// committed lock on every platform.
//
// Why: a registry mirror that serves only this machine's platform (as on Toolgate's build machines)
// answers 404 for, say, @rollup/rollup-darwin-arm64, and npm then writes a lock without that entry;
// `npm ci` anywhere refuses such a lock ("Missing: … from lock file"). An entry needs only the name,
// the exact version its parent pins, and the os/cpu/libc it is for: npm skips it on other platforms
// and fetches it by name and version where it fits. The platform is read from the package name
// (`-darwin-arm64`, `-linux-x64-musl`, `-win32-ia32-msvc`), the convention of rollup, esbuild and
// their kind; a name that does not follow it is reported, never guessed.
//
// Run after changing dependencies on such a machine: `node scripts/lock-platforms.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'netbsd', 'openbsd', 'openharmony', 'sunos', 'aix', 'win32'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

/** The os, cpu and libc a platform package is for, read from its name; undefined when the name does not say. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((part) => OS.includes(part));
  if (osIndex < 0) return undefined;
  const cpu = parts.slice(osIndex + 1).find((part) => CPU.includes(part));
  if (!cpu) return undefined;
  const rest = parts.slice(osIndex + 1).join('-');
  const libc = parts[osIndex] !== 'linux' ? undefined : /musl/.test(rest) ? 'musl' : /gnu/.test(rest) ? 'glibc' : undefined;
  return { os: parts[osIndex], cpu, libc };
}

const added = [];
const unknown = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
    if (packages[nested] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) {
      unknown.push(`${dep}@${range} (wanted by ${path || 'the root'})`);
      continue;
    }
    packages[`node_modules/${dep}`] = {
      version: range,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(dep);
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added.length} platform package(s) added${added.length ? `: ${added.join(', ')}` : ''}`);
if (unknown.length) {
  console.error(`not added (the name does not say its platform, or the version is a range):\n  ${unknown.join('\n  ')}`);
  process.exitCode = 1;
}
