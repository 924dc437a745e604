import type { Redis } from 'ioredis';

/**
 * Ends an ioredis connection for good and resolves once nothing of it is left to hold the process:
 * `disconnect()` and `quit()` return while the socket is still closing. `graceful` (when connected):
 * QUIT, so the commands already sent get their answers first; otherwise the socket is ended at once
 * (with Redis away, QUIT would wait for a reconnection).
 */
export async function closed(connection: Redis, options: { graceful?: boolean } = {}): Promise<void> {
  if (connection.status === 'end') return;
  let onEnd = (): void => undefined;
  const ended = new Promise<void>((resolve) => {
    onEnd = resolve;
    connection.once('end', onEnd);
  });
  if (options.graceful === true && connection.status === 'ready')
    await connection.quit().catch(() => undefined);
  else connection.disconnect();
  // Between two reconnection attempts there is no socket: disconnect() cleared the timer that was
  // left, and ioredis says no 'end' for it.
  if (connection.status === 'reconnecting' || connection.status === 'close') {
    connection.off('end', onEnd);
    return;
  }
  await ended;
}
