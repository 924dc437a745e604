import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/** Rows per INSERT when copying shares: 5 bound values each, far below either backend's bound. */
const COPY_BATCH = 500;

/**
 * Access grants and scoped keys (issue 23). A share becomes a grant the guest accepts, with a role,
 * a window, a weekly schedule and one-time use; an API key may be limited to scopes, locks and an
 * expiry; a lock has the time zone its schedules are read in.
 *
 * `lock_shares` becomes `grants`: still one row per lock and guest (the same primary key), so a new
 * invitation replaces the row's terms and state. The table is made anew and the shares copied
 * rather than renamed and altered: SQLite adds no column that is NOT NULL without a constant default
 * or UNIQUE, and `id`, `owner_id` and `created_at` have neither; a copy gives both backends the same
 * constraints. Each share becomes an accepted view grant (all a guest could do was look), made now,
 * its id a random UUID. A share whose lock is gone (SQLite left foreign keys unenforced before
 * they were switched on) gave access to nothing and is not copied.
 *
 * The cross-field rules of domain/grant.ts are also CHECKs: two edits racing through
 * GrantStore.updateTermsIf each pass alone, and together must not store a one-time view grant or a
 * window that ends before it starts.
 *
 * API keys gain nullable limits; null is no limit, so keys made before keep full access and no row
 * is rewritten. Locks get `time_zone`, 'UTC' until the owner sets one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('grants')
    .addColumn('device_id', 'text', (c) => c.notNull().references('locks.device_id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'bigint')
    .addColumn('ends_at', 'bigint')
    // JSON of the checked WeeklySchedule; null: at any time.
    .addColumn('schedule', 'text')
    .addColumn('one_time', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('responded_at', 'bigint')
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('grants_pk', ['device_id', 'account_id'])
    .addCheckConstraint('grants_role', sql`role IN ('view', 'operate')`)
    .addCheckConstraint('grants_state', sql`state IN ('pending', 'accepted', 'declined', 'revoked', 'used')`)
    .addCheckConstraint('grants_one_time', sql`one_time = 0 OR (one_time = 1 AND role = 'operate')`)
    .addCheckConstraint('grants_window', sql`starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at`)
    .execute();
  // The guest's lookups (the locks and events it sees, its invitations); the owner's go by device_id.
  await db.schema.createIndex('grants_account').on('grants').column('account_id').execute();

  const now = Date.now();
  const { rows: shares } = await sql<{ device_id: string; account_id: string; owner_id: string }>`
    SELECT s.device_id, s.account_id, l.owner_id FROM lock_shares s
      JOIN locks l ON l.device_id = s.device_id
      ORDER BY s.device_id, s.account_id`.execute(db);
  for (let i = 0; i < shares.length; i += COPY_BATCH) {
    const values = shares
      .slice(i, i + COPY_BATCH)
      .map(
        (s) =>
          sql`(${s.device_id}, ${s.account_id}, ${randomUUID()}, ${s.owner_id}, 'view', 'accepted', 0, ${now})`,
      );
    await sql`INSERT INTO grants (device_id, account_id, id, owner_id, role, state, one_time, created_at)
      VALUES ${sql.join(values)}`.execute(db);
  }
  await db.schema.dropTable('lock_shares').execute();

  const keyColumns: [string, 'text' | 'bigint'][] = [
    // JSON lists; null: every scope, every lock of the account.
    ['scopes', 'text'],
    ['lock_ids', 'text'],
    ['expires_at', 'bigint'],
    ['name', 'text'],
    ['last_used_ip', 'text'],
  ];
  // One column per statement: SQLite adds one at a time.
  for (const [name, type] of keyColumns)
    await db.schema.alterTable('api_keys').addColumn(name, type).execute();

  await db.schema
    .alterTable('locks')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
}
