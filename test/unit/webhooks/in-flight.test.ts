/** The dispatcher's fairness (src/app/webhooks/in-flight.ts): who gets the free places, and who waits. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Candidate, DEFAULT_DISPATCH_LIMITS, InFlight } from '../../../src/app/webhooks/in-flight.ts';

let seq = 0;
const msg = (accountId: string, host: string, deviceId = `lock-${++seq}`): Candidate & { id: string } => ({
  id: `m${++seq}`,
  accountId,
  deviceId,
  host,
  seq,
});
const many = (n: number, accountId: string, host: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => msg(accountId, host(i)));
const accountsOf = (picked: { candidate: Candidate }[]) => picked.map((p) => p.candidate.accountId);

describe('InFlight: places shared between accounts', () => {
  it("gives each account at most its share, whatever its backlog, and serves the other account's one message", () => {
    const slots = new InFlight(DEFAULT_DISPATCH_LIMITS);
    // 240 of A's messages to 8 ports of one host, then one of B's, as the attack.
    const due = [...many(240, 'A', (i) => `127.0.0.1:${9000 + (i % 8)}`), msg('B', '127.0.0.2:80')];
    const picked = slots.pick(due);
    assert.equal(accountsOf(picked).filter((a) => a === 'A').length, 8, 'A: its per-account limit');
    assert.ok(accountsOf(picked).includes('B'), 'B started in the same pass');
    assert.equal(slots.room, 32 - 9);
  });

  it('serves the least busy account first, then the oldest message', () => {
    const slots = new InFlight({ ...DEFAULT_DISPATCH_LIMITS, total: 5 });
    const a = many(4, 'A', () => 'a.example');
    const b = many(2, 'B', () => 'b.example');
    const c = [msg('C', 'c.example')];
    assert.deepEqual(accountsOf(slots.pick([...a, ...b, ...c])), ['A', 'B', 'C', 'A', 'B']);
  });

  it('lets a lock have one message out at a time', () => {
    const slots = new InFlight(DEFAULT_DISPATCH_LIMITS);
    const first = msg('A', 'a.example', 'door');
    const picked = slots.pick([first]);
    assert.equal(picked.length, 1);
    assert.deepEqual(slots.pick([msg('A', 'a.example', 'door')]), []);
    slots.end(picked[0]?.ticket ?? assert.fail());
    assert.equal(slots.pick([msg('A', 'a.example', 'door')]).length, 1);
  });

  it('asks least busy accounts first: levels, and the accounts each level leaves out', () => {
    const slots = new InFlight(DEFAULT_DISPATCH_LIMITS);
    assert.deepEqual(slots.levels(), [0]);
    slots.pick([...many(8, 'A', (i) => `a${i}.example`), ...many(2, 'B', (i) => `b${i}.example`)]);
    assert.equal(slots.load('A'), 8);
    assert.equal(slots.load('B'), 2);
    // A is full: no level includes it; B has 2 out.
    assert.deepEqual(slots.levels(), [0, 2]);
    assert.deepEqual([...slots.skip(0).accounts].sort(), ['A', 'B']);
    assert.deepEqual(slots.skip(2).accounts, ['A']);
  });
});

describe('InFlight: receiver hosts, as resolved', () => {
  it("holds one account to perHost at one resolved host, across the URL's ports and names", () => {
    const slots = new InFlight(DEFAULT_DISPATCH_LIMITS);
    const picked = slots.pick(many(8, 'A', (i) => `127.0.0.1:${9000 + i}`));
    assert.equal(picked.length, 8, 'unknown hosts: each may start, up to the account limit');
    const admitted = picked.map(({ ticket }) => slots.admit(ticket, '127.0.0.1'));
    assert.deepEqual(admitted, [true, true, true, true, false, false, false, false]);
    // The refused ones are given back; their URL hosts are now known to be full for A.
    for (const [i, { ticket }] of picked.entries()) if (!admitted[i]) slots.end(ticket);
    const skip = slots.skip(4);
    assert.equal(skip.accountHosts.length, 8, 'every port of that host is left out for A');
    assert.ok(skip.accountHosts.every(([account]) => account === 'A'));
    assert.deepEqual(skip.hosts, [], 'other accounts may still reach it');
    assert.deepEqual(slots.pick(many(3, 'A', (i) => `127.0.0.1:${9000 + i}`)), []);
    // Another account reaches the same host; A's other hosts are open to A.
    assert.equal(slots.pick([msg('B', '127.0.0.1:9000')]).length, 1);
    assert.equal(slots.pick([msg('A', 'elsewhere.example')]).length, 1);
  });

  it('holds every account together to perHostTotal at one host', () => {
    const slots = new InFlight({ ...DEFAULT_DISPATCH_LIMITS, perHostTotal: 6 });
    const admitted: boolean[] = [];
    for (const account of ['A', 'B', 'C']) {
      for (const { ticket } of slots.pick(many(4, account, () => 'hooks.example')))
        admitted.push(slots.admit(ticket, '203.0.113.9'));
    }
    assert.equal(admitted.filter(Boolean).length, 6);
    assert.deepEqual(slots.skip(8).hosts, ['hooks.example'], 'left out for everyone');
  });

  it('frees the places when messages end, and forgets a host nobody is sending to', () => {
    const slots = new InFlight(DEFAULT_DISPATCH_LIMITS);
    const picked = slots.pick(many(4, 'A', () => 'a.example'));
    for (const { ticket } of picked) assert.equal(slots.admit(ticket, '198.51.100.1'), true);
    assert.equal(slots.skip(8).accountHosts.length, 1);
    for (const { ticket } of picked) slots.end(ticket);
    assert.equal(slots.room, 32);
    assert.deepEqual(slots.skip(0), { accounts: [], hosts: [], accountHosts: [] });
    assert.equal(slots.pick(many(4, 'A', () => 'a.example')).length, 4);
  });

  it('moves a place when a name resolves somewhere else than it did', () => {
    const slots = new InFlight({ ...DEFAULT_DISPATCH_LIMITS, perHost: 1 });
    const first = slots.pick([msg('A', 'moving.example')])[0]?.ticket ?? assert.fail();
    assert.equal(slots.admit(first, '192.0.2.1'), true);
    const [second] = slots.pick([msg('A', 'other.example')]);
    assert.equal(slots.admit(second?.ticket ?? assert.fail(), '192.0.2.2'), true);
    // moving.example now resolves to 192.0.2.2, where A already has its one place.
    const [third] = slots.pick([msg('A', 'moving.example')]);
    assert.equal(third, undefined, 'known to be full at 192.0.2.1');
    slots.end(first);
    const [fourth] = slots.pick([msg('A', 'moving.example')]);
    assert.equal(slots.admit(fourth?.ticket ?? assert.fail(), '192.0.2.2'), false);
  });
});
