/** Variables a tool process may inherit; everything else (tokens, NODE_OPTIONS, LD_PRELOAD, secrets) stays out. */
const ALLOWED = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ', 'USER', 'LOGNAME'];

/** The environment a tool process starts from: an allowlist of the gate's own. */
export function toolEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ALLOWED) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
