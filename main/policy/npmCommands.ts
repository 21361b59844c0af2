/**
 * npm reads its command loosely (lib/utils/cmd-list.js, npm 11): camelCase as kebab-case, a list
 * of aliases (`rm` is uninstall, `i` install, `x` exec, typos such as `isntall`), and any unique
 * abbreviation of a command or alias (`publ` is publish). A rule naming one command holds every
 * spelling of it; an abbreviation counts even where npm would find it ambiguous (fail closed).
 */

/** npm's aliases and the command each one is. */
const NPM_ALIASES: Readonly<Record<string, string>> = {
  author: 'owner', home: 'docs', issues: 'bugs', info: 'view', show: 'view', find: 'search', add: 'install', unlink: 'uninstall',
  remove: 'uninstall', rm: 'uninstall', r: 'uninstall', un: 'uninstall', rb: 'rebuild', list: 'ls', ln: 'link', create: 'init',
  i: 'install', it: 'install-test', cit: 'install-ci-test', u: 'update', up: 'update', c: 'config', s: 'search', se: 'search',
  tst: 'test', t: 'test', ddp: 'dedupe', v: 'view', 'run-script': 'run', 'clean-install': 'ci', 'clean-install-test': 'install-ci-test',
  x: 'exec', why: 'explain', la: 'll', verison: 'version', ic: 'ci', innit: 'init', in: 'install', ins: 'install', inst: 'install',
  insta: 'install', instal: 'install', isnt: 'install', isnta: 'install', isntal: 'install', isntall: 'install', 'install-clean': 'ci',
  'isntall-clean': 'ci', hlep: 'help', 'dist-tags': 'dist-tag', upgrade: 'update', udpate: 'update', rum: 'run', sit: 'install-ci-test',
  urn: 'run', ogr: 'org', 'add-user': 'adduser',
};

/** The command npm runs for a command word as written, when it is exactly a command or an alias. */
function npmCommandOf(word: string): string {
  const kebab = word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return NPM_ALIASES[kebab] ?? kebab;
}

/** Whether npm may run `command` for the command word `given` (an alias, another case, an abbreviation). */
export function npmMayRun(given: string, command: string): boolean {
  const wanted = npmCommandOf(command);
  const kebab = given.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  if (npmCommandOf(given) === wanted) return true;
  const spellings = [wanted, ...Object.keys(NPM_ALIASES).filter((alias) => NPM_ALIASES[alias] === wanted)];
  return kebab !== '' && spellings.some((spelling) => spelling.startsWith(kebab));
}
