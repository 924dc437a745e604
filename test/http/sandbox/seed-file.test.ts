/** createServer with --seed: a bad seed file stops the start before any data is written. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { scryptHasher } from '../../../src/adapters/system/crypto.ts';
import { SeedError } from '../../../src/app/seed/validate.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createServer, StartupError } from '../../../src/main.ts';
import { LOCK_A, LOCK_B, standardSeed } from '../../support/server.ts';
import { freshDataDir } from './helpers.ts';

describe('createServer with a bad seed file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const passwords = scryptHasher({ N: 1024, r: 8, p: 1 });

  const startWith = (seedText: string | undefined): { run: Promise<unknown>; dataDir: string } => {
    const dir = freshDataDir();
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const seedFile = join(dir, 'seed.json');
    if (seedText !== undefined) writeFileSync(seedFile, seedText);
    const config = loadConfig({}, [
      '--port',
      '0',
      '--data',
      dataDir,
      '--seed',
      seedFile,
      '--log-level',
      'silent',
    ]);
    return { run: createServer(config, { passwords }), dataDir };
  };

  it('refuses to start, naming the field, and leaves the data directory untouched', async () => {
    const seed = standardSeed();
    const bad = { ...seed, locks: [{ ...seed.locks?.[0], battery: 150 }] };
    const { run, dataDir } = startWith(JSON.stringify(bad));
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SeedError && error.message.includes('seed.locks[0].battery'),
    );
    assert.ok(!existsSync(dataDir) || readdirSync(dataDir).length === 0, 'nothing was created');
  });

  it('refuses an owner that is not in the accounts and a duplicate device id', async () => {
    const seed = standardSeed();
    const locks = seed.locks ?? [];
    const bad = { ...seed, locks: [...locks, { device_id: LOCK_A, owner: 'ghost@example.com' }] };
    const { run } = startWith(JSON.stringify(bad));
    await assert.rejects(
      run,
      (error: unknown) =>
        error instanceof SeedError &&
        error.message.includes(`seed.locks[${locks.length}].device_id`) &&
        error.message.includes(`seed.locks[${locks.length}].owner`),
    );
  });

  it('refuses a seed file that is not JSON', async () => {
    const { run } = startWith('{ not json');
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SeedError && error.message.includes('not valid JSON'),
    );
  });

  it('refuses a seed file that cannot be read with a StartupError naming it', async () => {
    const { run } = startWith(undefined);
    await assert.rejects(
      run,
      (error: unknown) => error instanceof StartupError && error.message.includes('seed.json'),
    );
  });

  it('starts with a good seed file through the same path', async () => {
    const { run } = startWith(
      JSON.stringify({ ...standardSeed(), locks: [{ device_id: LOCK_B, owner: 'owner@example.com' }] }),
    );
    const server = (await run) as Awaited<ReturnType<typeof createServer>>;
    try {
      assert.equal(server.report.kind, 'seeded');
    } finally {
      await server.close();
    }
  });
});
