import type { Kysely } from 'kysely';
import type { BlockStore } from '../../../app/ports.ts';
import type { IpBlock } from '../../../domain/rate-limit.ts';
import type { Database } from './tables.ts';

export class SqlBlockStore implements BlockStore {
  constructor(private readonly db: Kysely<Database>) {}

  async block(b: IpBlock): Promise<void> {
    const values = { blocked_at: b.blockedAt, until: b.until };
    await this.db
      .insertInto('ip_blocks')
      .values({ ip: b.ip, ...values })
      .onConflict((oc) => oc.column('ip').doUpdateSet(values))
      .execute();
  }

  async listActive(now: number): Promise<IpBlock[]> {
    const rows = await this.db
      .selectFrom('ip_blocks')
      .selectAll()
      .where('until', '>', now)
      .orderBy('ip')
      .execute();
    return rows.map((r) => ({ ip: r.ip, blockedAt: Number(r.blocked_at), until: Number(r.until) }));
  }

  async unblock(ip: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ip_blocks').where('ip', '=', ip).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async purgeEndedBefore(cutoff: number): Promise<number> {
    const result = await this.db.deleteFrom('ip_blocks').where('until', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
