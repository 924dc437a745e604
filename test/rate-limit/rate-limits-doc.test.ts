/**
 * docs/rate-limits.md against the code: the tables of default limits (v3, then /ext) row by row in
 * both directions, the command budget, the block policy and the v1 login numbers, so the document
 * cannot drift from the defaults.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_LOGIN_LIMITS, KNOWN_CLIENT_MS } from '../../src/app/login.ts';
import {
  DEFAULT_RATE_LIMITS,
  LIMITED_ENDPOINTS,
  OAUTH_LIMITED_ENDPOINTS,
  type RatePolicy,
} from '../../src/domain/rate-limit.ts';

const doc = readFileSync(new URL('../../docs/rate-limits.md', import.meta.url), 'utf8');
// Prose checked as words, whatever the line breaks.
const prose = doc.replace(/\s+/g, ' ');

const cell = (p: RatePolicy) => `${p.burst}, then ${1000 / p.intervalMs}/s`;

describe('docs/rate-limits.md', () => {
  it('lists every limited endpoint with its default account and address limits, and nothing else', () => {
    const rows = [
      ...doc.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) \/[^`]+)` \| ([^|]+) \| ([^|]+) \|$/gm),
    ].map((m) => [m[1], m[2]?.trim(), m[3]?.trim()]);
    const expected = LIMITED_ENDPOINTS.map((e) => {
      const { account, ip } = DEFAULT_RATE_LIMITS.endpoints[e];
      return [e, cell(account), cell(ip)];
    });
    assert.deepEqual(rows, expected);
  });

  it('lists every limited OAuth endpoint with its default address limit, and nothing else', () => {
    const rows = [...doc.matchAll(/^\| `((?:GET|POST) \/oauth[^`]*)` \| ([^|]+) \|$/gm)].map((m) => [
      m[1],
      m[2]?.trim(),
    ]);
    assert.deepEqual(
      rows,
      OAUTH_LIMITED_ENDPOINTS.map((e) => [e, cell(DEFAULT_RATE_LIMITS.oauth[e])]),
    );
  });

  it('states the default command budget', () => {
    assert.ok(prose.includes(`Default command budget: **${cell(DEFAULT_RATE_LIMITS.commands)}**`));
    const { burst, intervalMs } = DEFAULT_RATE_LIMITS.commands;
    assert.equal(intervalMs, 1000);
    assert.ok(prose.includes(`**${burst} commands at once, then one a second**`));
  });

  it('states the default block policy', () => {
    const { excess, windowMs, blockMs } = DEFAULT_RATE_LIMITS.block;
    assert.ok(prose.includes(`**${excess} refusals**`), 'excess');
    assert.ok(prose.includes(`**${windowMs / 1000} seconds**`), 'window');
    assert.ok(prose.includes(`**blocked for ${blockMs / 60_000} minutes**`), 'block');
  });

  it('states the v1 login limits', () => {
    const { failuresPerEmailAndIp, perIp, perEmailFromNewClients } = DEFAULT_LOGIN_LIMITS;
    assert.equal(failuresPerEmailAndIp.intervalMs, 60_000);
    assert.ok(
      prose.includes(
        `${failuresPerEmailAndIp.burst} failed attempts per e-mail from one client address, then one a minute`,
      ),
    );
    assert.ok(
      prose.includes(
        `${perIp.burst} attempts per client address, then one every ${perIp.intervalMs / 1000} s`,
      ),
    );
    assert.ok(
      prose.includes(
        `${perEmailFromNewClients.burst} attempts per e-mail from clients that have not logged in to it, then one every ${perEmailFromNewClients.intervalMs / 60_000} minutes`,
      ),
    );
    assert.ok(prose.includes(`within ${KNOWN_CLIENT_MS / 86_400_000} days`));
  });

  it('shows the headers of a first status read as the code makes them', () => {
    const { burst, intervalMs } = DEFAULT_RATE_LIMITS.endpoints['GET /public/lock/{device_id}'].account;
    const w = Math.ceil((burst * intervalMs) / 1000);
    assert.ok(doc.includes(`RateLimit-Policy: "endpoint";q=${burst};w=${w}`));
    assert.ok(doc.includes(`RateLimit: "endpoint";r=${burst - 1};t=1`));
    assert.ok(prose.includes(`request number ${burst + 1} of a burst`));
  });
});
