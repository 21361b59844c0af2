/** Why this Node version (e.g. `22.15.0`) cannot run Toolgate, as the text to print; undefined when it can. */
export function nodeVersionProblem(version: string): string | undefined;
