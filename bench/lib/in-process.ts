/**
 * A lockcloud server inside the bench's own process, for benches that call its use cases directly
 * (no HTTP between): silent, on free ports, with password hashing at a test cost (no bench times a
 * login here).
 */
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, type LockcloudServer } from '../../src/main.ts';

export function startInProcess(
  dataDir: string,
  seedFile: string,
  flags: readonly string[] = [],
): Promise<LockcloudServer> {
  const argv = ['--data', dataDir, '--seed', seedFile, '--log-level', 'silent', '--port', '0'];
  return createServer(loadConfig({}, [...argv, '--mqtt-port', '0', ...flags]), {
    passwords: scryptHasher({ N: 1024, r: 8, p: 1 }),
  });
}
