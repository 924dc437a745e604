import { type Kysely, Migrator } from 'kysely';
import { migrationProvider } from './migrations/index.ts';

/** Brings the schema to the latest version; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined) {
    const name = failed === undefined ? '' : ` ${failed.migrationName}`;
    throw new Error(`database migration${name} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
