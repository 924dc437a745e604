/**
 * A deleted account is sent nothing more: deleting it from the dashboard removes its webhook
 * endpoints with their secrets and waiting messages (as it removes the API Settings webhook), and
 * once it is deleted, the relay makes no message for it (docs/webhooks.md "Endpoints").
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { FormClient } from '../../dashboard/support.ts';
import { eventually } from '../../support/eventually.ts';
import { OWNER, startServer, type TestServer } from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS } from '../../support/webhooks.ts';
import { createEndpoint } from './helpers.ts';

function rows(t: TestServer, sql: string): unknown[] {
  const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('webhook endpoints of a deleted account', () => {
  let receiver: Receiver;
  let t: TestServer;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: FLAGS });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('go with the account when its owner deletes it from the dashboard', async () => {
    const endpoint = await createEndpoint(t, { url: `${receiver.url}/gone` });
    const owner = `(SELECT id FROM accounts WHERE email = '${OWNER}')`;
    assert.equal(rows(t, `SELECT id FROM webhook_endpoints WHERE account_id = ${owner}`).length, 1);
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const login = await c.send('/dashboard/login', { email: OWNER, password: 'owner-password' });
    assert.equal(login.posted, 303);
    await c.get('/dashboard/account');
    const deleted = await c.post('/dashboard/account/delete', { password: 'owner-password' });
    assert.equal(deleted.status, 303, deleted.text.slice(0, 200));
    assert.deepEqual(rows(t, `SELECT id FROM webhook_endpoints WHERE account_id = ${owner}`), []);
    // A message out at that moment finishes and is then forgotten; the rest went at once.
    await eventually(
      'its messages to go with it',
      () => rows(t, `SELECT id FROM webhook_deliveries WHERE endpoint_id = '${endpoint.id}'`).length === 0,
    );
  });
});
