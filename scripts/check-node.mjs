#!/usr/bin/env node
// Stops `npm install`, `npm start` and `npm test` at once, with the fix, on a Node older than the one
// Toolgate needs (22.13: the audit store is Node's built-in SQLite, and Electron's tooling asks as much).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(
    `Toolgate needs Node 22.13 or newer (22 LTS or 24 LTS); this is Node ${process.versions.node}.\n` +
      'Install a current Node (https://nodejs.org, or your version manager: `nvm install 22`, `fnm use 22`),\n' +
      'or, with only npm at hand: `npm install --prefix ~/.node22 node@22` and put ~/.node22/node_modules/.bin first on PATH.',
  );
  process.exit(1);
}
