import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.ts';
import * as loginTokens from './002-login-tokens.ts';
import * as ipBlocks from './003-ip-blocks.ts';

/** Versioned migrations, in code so a bundled or installed build carries them. Append; never edit. */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-login-tokens': loginTokens,
  '003-ip-blocks': ipBlocks,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
