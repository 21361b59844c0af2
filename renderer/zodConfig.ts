import { z } from 'zod';

// Zod probes `new Function` to decide whether to compile fast parsers; under the console's CSP
// (no 'unsafe-eval') that probe is reported as a violation even though Zod catches it. Jitless
// mode skips the probe. Imported first by main.tsx, before any schema parses.
z.config({ jitless: true });
