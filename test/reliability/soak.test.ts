/**
 * The soak's short form for CI (the long one is `npm run soak`, 10 minutes): a server process
 * under mixed load (v3, v1, sandbox changes, bad requests, webhooks to a local receiver) until it
 * has served an amount of work, however long that takes on the machine. Every answer must be
 * documented and expected, every accepted command must end as documented, and every webhook
 * message must reach the receiver. Correctness only: how fast it serves is the long form's and the
 * benchmarks' to report (a loaded machine served 411 answers in 15 s), and memory is reported by the
 * long form, not asserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSoak } from '../support/soak.ts';

describe('soak, short form', () => {
  it('serves 500 answers of mixed load without an error, an unfinished command or a lost webhook', async () => {
    const report = await runSoak({
      // The longest it may take; it ends as soon as the work below is done (about 15 s here).
      durationMs: 180_000,
      enough: (load, webhooks) => load.verdicts.ok > 500 && load.accepted.length > 20 && webhooks.logged > 10,
      reportEveryMs: 5_000,
      clients: 4,
    });
    const detail = `${report.table}\nfailures: ${JSON.stringify(report.failures.slice(0, 5))}`;
    assert.equal(report.serverExit, null, 'the server ran throughout');
    assert.equal(report.errors, 0, `no error answer:\n${detail}`);
    assert.ok(report.verdicts.ok > 500, `the load was served:\n${detail}`);
    assert.ok(report.acceptedCommands > 20, `commands were accepted: ${report.acceptedCommands}`);
    assert.equal(report.unfinishedCommands, 0, 'every accepted command ends');
    assert.equal(report.badOutcomes, 0, 'no command ends INTERNAL_ERROR');
    assert.ok(report.webhooks.logged > 10, `webhooks were sent: ${JSON.stringify(report.webhooks)}`);
    assert.equal(report.logOverflowed, false, 'every message was followed');
    assert.equal(report.lostWebhooks, 0, `no webhook lost: ${JSON.stringify(report.webhooks)}`);
  });
});
