#!/usr/bin/env node
// Stops `npm install`, `npm start` and `npm test` at once, with the fix, on a Node that cannot run
// Toolgate. The audit store is Node's built-in SQLite, and the explorer's search is its full-text
// index (FTS5, trigram): Node builds its SQLite with FTS5 from 22.16 on the 22 line and from 24.0;
// 22.13–22.15 and every 23.x leave it out.

/** Why this Node version cannot run Toolgate (the text to print), or undefined when it can. */
export function nodeVersionProblem(version) {
  const [major, minor] = version.split('.').map(Number);
  if ((major === 22 && minor >= 16) || major >= 24) return undefined;
  const why = major === 23 || (major === 22 && minor >= 13) ? ': its built-in SQLite has no full-text search (FTS5), which the audit explorer needs' : '';
  return (
    `Toolgate needs Node 22.16 or newer on the 22 line, or Node 24 or newer (22 LTS or 24 LTS); this is Node ${version}${why}.\n` +
    'Install a current Node (https://nodejs.org, or your version manager: `nvm install 22`, `fnm use 22`),\n' +
    'or, with only npm at hand: `npm install --prefix ~/.node22 node@22` and put ~/.node22/node_modules/.bin first on PATH.'
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
