// The V8 settings `toolgate serve` runs with (bin/toolgate.js puts them on V8's command line), kept
// here so the bench can give a baseline server the same tiering and show what they are worth alone.

/**
 * V8 optimizes a function after 300 calls instead of 3,000, and 100 calls after its types last
 * changed instead of 500. The code a call runs once (its pipeline, its record, the HTTP exchange)
 * was optimized only after about 4,000 calls; with these, within the first few hundred. The tool
 * processes take the same two (main/hosts/childProcessHost.ts).
 */
export const TIERING_FLAGS = ['--invocation-count-for-turbofan=300', '--minimum-invocations-after-ic-update=100'];

/**
 * The tiering above, and two heap settings that keep the gate about 100 MB smaller under 16 agents
 * at the same CPU per call: a young generation of 4 MB instead of up to 16 MB per semi-space, and
 * an old generation let grow 60 % past what survived the last full collection, where V8 let it
 * reach several times that (its live heap is about 40 MB).
 */
export const GATE_V8_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=60', ...TIERING_FLAGS];
