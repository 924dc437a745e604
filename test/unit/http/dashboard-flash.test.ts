/**
 * The dashboard's one-time handles (Post/Redirect/Get, issue 20 point 2): taken once, by the browser
 * that made them, for two minutes; a malformed or unknown one is simply not there. And the order of
 * the lock cards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FLASH_TTL_MS, Flashes, MAX_REFILL } from '../../../src/http/dashboard/flash.ts';
import { sortedByName } from '../../../src/http/dashboard/views/locks-page.ts';

const SECRET = { kind: 'key', value: 'lck_secret' } as const;

describe('Flashes', () => {
  it('gives a flash once, to its own browser only, and leaves it for that browser when another asks', () => {
    const flashes = new Flashes(() => 1000);
    const handle = flashes.put('browser-a', { revealed: SECRET });
    assert.match(handle, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(flashes.take('browser-b', handle), undefined);
    assert.deepEqual(flashes.take('browser-a', handle), { revealed: SECRET });
    assert.equal(flashes.take('browser-a', handle), undefined, 'once');
  });

  it('forgets a flash after two minutes on the clock', () => {
    let now = 0;
    const flashes = new Flashes(() => now);
    const handle = flashes.put('a', { notice: { kind: 'success', text: 'Done.' } });
    now = FLASH_TTL_MS - 1;
    const kept = flashes.put('a', { notice: { kind: 'success', text: 'Kept.' } });
    now = FLASH_TTL_MS;
    assert.equal(flashes.take('a', handle), undefined);
    assert.deepEqual(flashes.take('a', kept), { notice: { kind: 'success', text: 'Kept.' } });
  });

  it('answers nothing for a missing, malformed or unknown handle', () => {
    const flashes = new Flashes(() => 0);
    for (const handle of [undefined, '', 'x', '../../etc', 'A'.repeat(22), 'A'.repeat(23)])
      assert.equal(flashes.take('a', handle), undefined, String(handle));
  });

  it('lets go of the expired at the next put, and after the clock is set back refuses them still', () => {
    let now = 0;
    const flashes = new Flashes(() => now);
    for (let i = 0; i < 5; i++) flashes.put('a', {});
    flashes.put('a', { refused: { status: 400, notice: { kind: 'error', text: 'No.' } } });
    now = FLASH_TTL_MS;
    const live = flashes.put('a', {});
    assert.equal(flashes.size, 2, 'the five expired notices gone, the refusal waits for its own pool');
    // The sandbox's clock reset: a flash made now expires before the one made at FLASH_TTL_MS.
    now = 0;
    const early = flashes.put('a', {});
    now = FLASH_TTL_MS + 1;
    flashes.put('a', {});
    assert.equal(flashes.take('a', early), undefined, 'expired, though behind a live one');
    assert.deepEqual(flashes.take('a', live), {});
  });

  it('keeps a bounded number, the oldest going first', () => {
    const flashes = new Flashes(() => 0);
    const first = flashes.put('a', {});
    for (let i = 0; i < 10_000; i++) flashes.put('a', {});
    assert.equal(flashes.take('a', first), undefined);
  });

  it('keeps refusals apart: a flood of refused forms never pushes out a secret waiting to be shown', () => {
    const flashes = new Flashes(() => 0);
    const secret = flashes.put('a', { revealed: SECRET });
    const refused = { status: 400, notice: { kind: 'error', text: 'Check the form.' } } as const;
    const firstRefusal = flashes.put('b', { refused });
    for (let i = 0; i < 10_000; i++) flashes.put('b', { refused });
    assert.equal(flashes.take('b', firstRefusal), undefined, 'the oldest refusal went');
    assert.deepEqual(flashes.take('a', secret), { revealed: SECRET });
  });

  it('gives a refusal back once, as stored, its refilled values and messages bounded in length', () => {
    const flashes = new Flashes(() => 0);
    const refused = {
      status: 429,
      retryAfterSeconds: 7,
      notice: { kind: 'error', text: 'Too many attempts. Try again in 7 s.' },
      errors: { email: 'x'.repeat(5000) },
      values: { email: 'owner@example.com', url: 'y'.repeat(5000) },
      unverified: true,
    } as const;
    const handle = flashes.put('a', { refused });
    const taken = flashes.take('a', handle)?.refused;
    assert.deepEqual(taken, {
      ...refused,
      errors: { email: 'x'.repeat(MAX_REFILL) },
      values: { email: 'owner@example.com', url: 'y'.repeat(MAX_REFILL) },
    });
    assert.equal(flashes.take('a', handle), undefined, 'once');
  });
});

describe('sortedByName', () => {
  it('sorts case-insensitively, numbers in order, ties in the order given', () => {
    const locks = [
      { nickname: 'garage', id: 1 },
      { nickname: 'Lock 10', id: 2 },
      { nickname: 'Back door', id: 3 },
      { nickname: 'back door', id: 4 },
      { nickname: 'Lock 9', id: 5 },
      { nickname: 'apple shed', id: 6 },
    ];
    assert.deepEqual(
      sortedByName(locks).map((l) => l.id),
      [6, 3, 4, 1, 5, 2],
    );
    assert.deepEqual(
      locks.map((l) => l.id),
      [1, 2, 3, 4, 5, 6],
      'the list given is left as it was',
    );
  });
});
