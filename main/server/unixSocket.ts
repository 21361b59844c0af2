import { chmodSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';

/**
 * Serves `server` on a Unix socket at `path` as well, readable and writable by its owner only
 * (0600): the bind happens under a umask that leaves no other bit, so there is no moment in which
 * someone else could connect. A socket file left by a gate that stopped without closing is replaced;
 * the caller has made sure no gate runs for this state folder.
 */
export async function listenOnUnixSocket(server: Server, path: string): Promise<void> {
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The bind happens within listen(): the umask is the gate's own again as soon as it returns.
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  chmodSync(path, 0o600);
}
