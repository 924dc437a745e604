/**
 * Statements of the hot paths that kept-sql.ts keeps, beyond the command's own (kept-sql.test.ts):
 * the ones a change's webhook message costs (issue 25, point 4), relayed, read as due, taken,
 * recorded, counted and bounded, and its signing secret read; and a command's Idempotency-Key, read
 * and claimed. Each is compiled by Kysely the first time only and then runs from its kept text,
 * since building one costs about as much as SQLite running it. A statement whose parameters are
 * named in another order than Kysely binds them is never kept, silently; this is what tells. Kept
 * statements reach the driver as raw SQL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import type { RelayPlan } from '../../src/app/ports.ts';
import { relayPlan } from '../../src/app/webhooks/relay.ts';
import { aLockEvent, anAccount } from '../support/fixtures.ts';
import { queryPlans } from './query-plans.ts';

const NONE = { accounts: [], hosts: [], accountHosts: [] };
let n = 0;
const plan: RelayPlan = (batch, targets) => relayPlan(batch, targets, 1_000, 30_000, () => `msg_${++n}`);

const HOT: Record<string, RegExp> = {
  "the relay's cursor, taken": /^update "webhook_relay" set "position" = "position"/,
  'the events past it': /^select \* from "events" where "seq" > \?/,
  'a message written': /^insert into "webhook_deliveries"/,
  "the relay's cursor, moved": /^update "webhook_relay" set "position" = \?/,
  'a backlog counted': /^select count\(\*\) as "n" from \(select "seq" from "webhook_deliveries"/,
  'the due messages': /^select "id", "account_id", "device_id", "host", "seq" from "webhook_deliveries"/,
  'a message taken': /^update "webhook_deliveries" set "status" = \?, "claimed_at" = \?/,
  'an attempt recorded': /^update "webhook_deliveries" set "status" = \?, "attempts" = \?/,
  "the log's cutoff": /^select "seq" from "webhook_deliveries" where "account_id" = \?/,
  'the signing secrets': /^select "secret", "previous_secret", "previous_until" from "webhooks"/,
};

/** Each statement the patterns name ran at least `times` times, and was built the first time only. */
function builtOnce(statements: readonly CompiledQuery[], hot: Record<string, RegExp>, times: number): void {
  for (const [what, pattern] of Object.entries(hot)) {
    const runs = statements.filter((s) => pattern.test(s.sql));
    const built = runs.filter((s) => s.query.kind !== 'RawNode');
    assert.ok(runs.length >= times, `${what}: ran ${runs.length} times`);
    assert.equal(built.length, 1, `${what}: built ${built.length} of ${runs.length} times`);
  }
}

describe("a webhook message's statements", () => {
  it('are built once, then run from kept text', async () => {
    const { statements } = await queryPlans(async (store) => {
      await store.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
      await store.webhooks.set({
        accountId: 'acc-1',
        url: 'http://hooks.example/{device_id}/{state}',
        method: 'POST',
        retries: false,
      });
      for (let round = 0; round < 3; round++) {
        await store.events.append([aLockEvent('acc-1', 'dev-a')]);
        assert.equal(await store.webhookEndpoints.relay({ batch: 10, open: 1_000 }, plan), 1);
        const [due] = await store.deliveries.due(40_000, 10, NONE);
        assert.ok(due, `round ${round}: a message is due`);
        const taken = await store.deliveries.claim(due.id, 40_000);
        assert.ok(taken);
        await store.deliveries.record(due.id, {
          ...taken,
          status: 'delivered',
          attempts: 1,
          lastAttemptAt: 40_001,
          nextAttemptAt: null,
          responseStatus: 204,
          latencyMs: 1,
        });
        await store.deliveries.countOpen('acc-1', 1_000);
        await store.deliveries.trim('acc-1', 500);
        await store.webhooks.getSecrets('acc-1');
      }
    });
    builtOnce(statements, HOT, 3);
  });
});

describe("a command's Idempotency-Key statements", () => {
  it('are built once, then run from kept text', async () => {
    const { statements } = await queryPlans(async (store) => {
      for (let round = 0; round < 3; round++) {
        const key = {
          accountId: 'acc-1',
          keyHash: `hash-${round}`,
          fingerprint: '["v3 POST /lock","dev-a","unlock"]',
          createdAt: 5_000,
          expiresAt: 90_000,
        };
        assert.equal(await store.idempotencyKeys.get('acc-1', key.keyHash), undefined);
        const task = { id: `t-${round}`, accountId: 'acc-1', deviceId: `dev-${round}` } as const;
        const made = await store.tasks.createProcessing(
          { ...task, command: 'unlock', status: 'processing', createdAt: 5_000, deadline: 20_000 },
          { key },
        );
        assert.equal(made.created, true);
        assert.equal((await store.idempotencyKeys.get('acc-1', key.keyHash))?.taskId, task.id);
      }
    });
    builtOnce(
      statements,
      {
        'the record read': /^select \* from "idempotency_keys"/,
        'the key claimed': /^insert into "idempotency_keys"/,
      },
      3,
    );
  });
});
