/**
 * Where the console's link to the gate is: `connecting` (first handshake), `open`, `reconnecting`
 * (lost; retrying with backoff), `refused` (the gate refused the token; no retry), `closed` (by us).
 * The desktop bridge is always `open`: IPC has no connection to lose.
 */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'refused' | 'closed';
