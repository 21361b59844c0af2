/**
 * What a built bundle can load: its static and dynamic imports, re-exports and `require` calls
 * (plain or through `createRequire`), followed through its own chunks, and the packages it names
 * with everything they depend on. Parsed with TypeScript's parser, not matched with regexes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** One thing a file asks to load, and whether its name was a literal the walk could follow. */
export interface LoadSite {
  file: string;
  specifier: string;
  how: 'import' | 'dynamic import' | 'require';
}

/** Calls that load an addon without naming a module (`process.dlopen`), found in a file's code. */
export interface DirectAddonLoad {
  file: string;
  code: string;
}

const BUILTINS = new Set(builtinModules);

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]!);
}

/** The load sites of one JavaScript file, and any call that loads an addon directly. */
export function loadSitesOf(file: string): { sites: LoadSite[]; direct: DirectAddonLoad[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const sites: LoadSite[] = [];
  const direct: DirectAddonLoad[] = [];
  // Names bound to require itself or to createRequire(...): calling them loads a module.
  const requirers = new Set(['require']);
  const literal = (node: ts.Node | undefined) => (node && ts.isStringLiteralLike(node) ? node.text : undefined);
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      sites.push({ file, specifier: literal(node.moduleSpecifier)!, how: 'import' });
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isCreateRequireCall(node.initializer)) {
      requirers.add(node.name.text);
    } else if (ts.isCallExpression(node)) {
      const specifier = literal(node.arguments[0]);
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword && specifier !== undefined) {
        sites.push({ file, specifier, how: 'dynamic import' });
      } else if (specifier !== undefined && ((ts.isIdentifier(node.expression) && requirers.has(node.expression.text)) || isCreateRequireCall(node.expression))) {
        sites.push({ file, specifier, how: 'require' });
      } else if (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'dlopen') {
        direct.push({ file, code: node.getText(source).slice(0, 120) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { sites, direct };
}

function isCreateRequireCall(node: ts.Expression): boolean {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && /^createRequire\d*$/.test(node.expression.text);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The folder of an installed package, looked up from `fromDir` the way Node does; undefined when not installed. */
export function packageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Packages known to exist only to build or find native addons. */
const ADDON_LOADERS = new Set(['bindings', 'node-gyp-build', 'prebuild-install', 'node-pre-gyp', '@mapbox/node-pre-gyp', 'node-addon-api', 'nan', 'pkg-prebuilds']);

/** Native addon packages named even when they are not installed here (an optional install still loads where present). */
const KNOWN_ADDONS = new Set(['better-sqlite3', 'sqlite3', 'node-pty', 'bufferutil', 'utf-8-validate', 'fsevents', 'keytar', 'sharp', 'canvas']);

/** Why a package is a native addon or loads one itself (a .node file, a binding.gyp, an addon loader), if it does. */
function ownAddonEvidence(dir: string, name: string): string | undefined {
  if (ADDON_LOADERS.has(name)) return 'it exists to load native addons';
  if (KNOWN_ADDONS.has(name)) return 'it is a native addon package';
  if (existsSync(join(dir, 'binding.gyp'))) return 'it has a binding.gyp';
  const walk = (folder: string, depth: number): string | undefined => {
    for (const entry of readdirSync(folder)) {
      if (entry === 'node_modules') continue;
      const path = join(folder, entry);
      if (entry.endsWith('.node') && statSync(path).isFile()) return `it ships ${path.slice(dir.length + 1)}`;
      if (depth < 6 && statSync(path).isDirectory()) {
        const found = walk(path, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(dir, 0);
}

/** A package reached from the bundle that is, or depends on, a native addon: the chain that reaches it and why. */
export interface AddonFinding {
  chain: string[];
  why: string;
}

/**
 * Walks everything `entry` can load. First-party files (the bundle's chunks) are parsed; a package
 * is judged with its whole installed dependency closure (dependencies, and optional or peer ones
 * when installed), since any of them may be loaded. `skip` names packages that are not on disk
 * in the running app (electron's own module).
 */
export function findAddons(entry: string, skip: ReadonlySet<string>): { findings: AddonFinding[]; direct: DirectAddonLoad[]; files: string[] } {
  const findings: AddonFinding[] = [];
  const direct: DirectAddonLoad[] = [];
  const files = new Set<string>();
  const packages = new Set<string>();
  // `named`: the bundle itself loads this package, so it counts even where it is not installed;
  // a package's optional or peer dependency that is not installed is never loaded.
  const visitPackage = (name: string, fromDir: string, chain: string[], named = false): void => {
    const dir = packageDir(name, fromDir);
    if (!dir) {
      if (named && (KNOWN_ADDONS.has(name) || ADDON_LOADERS.has(name))) findings.push({ chain: [...chain, name], why: 'it is a native addon package (not installed here)' });
      return;
    }
    if (packages.has(dir)) return;
    packages.add(dir);
    const why = ownAddonEvidence(dir, name);
    if (why) findings.push({ chain: [...chain, name], why });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const dependency of Object.keys(manifest[field] ?? {})) visitPackage(dependency, dir, [...chain, name]);
    }
  };
  const visitFile = (file: string, chain: string[]): void => {
    if (files.has(file)) return;
    files.add(file);
    const found = loadSitesOf(file);
    direct.push(...found.direct);
    for (const site of found.sites) {
      if (isBuiltin(site.specifier)) continue;
      if (site.specifier.startsWith('.') || site.specifier.startsWith('/')) {
        const target = resolve(dirname(file), site.specifier);
        if (target.endsWith('.node')) findings.push({ chain: [...chain, target], why: `${site.how} of a .node file` });
        else visitFile(target, [...chain, site.specifier]);
        continue;
      }
      const name = packageName(site.specifier);
      if (!skip.has(name)) visitPackage(name, dirname(file), [...chain, `${site.how} ${site.specifier}`], true);
    }
  };
  visitFile(entry, [entry]);
  return { findings, direct, files: [...files] };
}
