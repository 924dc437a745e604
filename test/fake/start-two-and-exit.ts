/**
 * Run as a process of its own by fake.test.ts: starts two sandboxes, sends a command through each,
 * closes both, and prints one JSON line: the base URLs and what Node still holds open. It must then
 * exit by itself (nothing else ends it) and print nothing else: the servers' logs are silent by default.
 */
import { startLockcloud } from '../../src/index.ts';

const both = await Promise.all([startLockcloud(), startLockcloud()]);
for (const lockcloud of both) {
  const [lock] = lockcloud.locks;
  const res = await fetch(`${lockcloud.url}/public/lock/${lock?.device_id}`, {
    method: 'POST',
    headers: { authorization: lockcloud.apiKey ?? '', 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'sync' }),
  });
  if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${await res.text()}`);
}
await Promise.all(both.map((lockcloud) => lockcloud.close()));
// A closed server's handle is released in the loop's close phase, one turn after its 'close' event.
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(
  `${JSON.stringify({
    urls: both.map((lockcloud) => lockcloud.url),
    mqttUrls: both.map((lockcloud) => lockcloud.mqttUrl),
    resourcesAfter: process.getActiveResourcesInfo(),
  })}\n`,
);
