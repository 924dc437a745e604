/**
 * A write by another process, for the read cache's tests. Its commit reaches the server as I/O (the
 * request that follows it), so never within the callback the server is running: the test lets the
 * current one end.
 */
export async function elsewhere(write: Promise<unknown>): Promise<void> {
  await write;
  await new Promise((resolve) => setImmediate(resolve));
}
