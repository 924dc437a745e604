/**
 * docs/webhooks.md against the code: its verification example really verifies lockcloud's
 * signatures (and refuses what it must), its flag table has the configuration's names and defaults,
 * its retry schedule is the code's, and every range it says is refused is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { addressPolicy } from '../../src/adapters/webhooks/address-policy.ts';
import { standardWebhooksSigner } from '../../src/adapters/webhooks/signer.ts';
import { SETTINGS, type Setting } from '../../src/config/config.ts';
import { deliveryBody, RETRY_DELAYS_MS } from '../../src/domain/webhook.ts';

const markdown = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** The text of a `## ` section, up to the next one. */
function section(heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/webhooks.md has a "## ${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

type Verify = (
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  toleranceSeconds?: number,
) => boolean;

describe('docs/webhooks.md', () => {
  let dir: string;
  let verify: Verify;
  before(async () => {
    const code = /```js\n([\s\S]*?)```/.exec(section('Signing'))?.[1];
    assert.ok(code, 'the Signing section has a js example');
    assert.ok(code.split('\n').length <= 25, 'the example stays short');
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-doc-verify-'));
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, code);
    verify = ((await import(pathToFileURL(file).href)) as { verifyWebhook: Verify }).verifyWebhook;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('the verification example', () => {
    const secret = standardWebhooksSigner.newSecret();
    const body = deliveryBody('00000000-0000-4000-8000-00000000000a', true);
    const now = () => Math.floor(Date.now() / 1000);
    const headersFor = (secrets: string[], id: string, timestamp: number, signed: string) => ({
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardWebhooksSigner.sign(secrets, id, timestamp, signed),
    });

    it("accepts lockcloud's signature of a POST body and of a GET's empty body", () => {
      assert.equal(verify(secret, headersFor([secret], 'msg_1', now(), body), body), true);
      assert.equal(verify(secret, headersFor([secret], 'msg_2', now(), ''), ''), true);
    });

    it('accepts either secret during a rotation', () => {
      const fresh = standardWebhooksSigner.newSecret();
      const headers = headersFor([fresh, secret], 'msg_3', now(), body);
      assert.equal(verify(fresh, headers, body), true);
      assert.equal(verify(secret, headers, body), true);
    });

    it('refuses another body, id, secret, an old timestamp, or missing headers', () => {
      const headers = headersFor([secret], 'msg_4', now(), body);
      assert.equal(verify(secret, headers, body.replace('true', 'false')), false);
      assert.equal(verify(secret, { ...headers, 'webhook-id': 'msg_5' }, body), false);
      assert.equal(verify(standardWebhooksSigner.newSecret(), headers, body), false);
      const old = now() - 600;
      assert.equal(verify(secret, headersFor([secret], 'msg_6', old, body), body), false);
      assert.equal(verify(secret, headersFor([secret], 'msg_6', old, body), body, 3600), true);
      assert.equal(verify(secret, { ...headers, 'webhook-signature': undefined }, body), false);
      assert.equal(verify(secret, { ...headers, 'webhook-signature': 'v1,' }, body), false);
      assert.equal(verify(secret, { ...headers, 'webhook-signature': 'v2,abc' }, body), false);
    });
  });

  it("lists the webhook settings with the configuration's flags, variables and defaults", () => {
    const table = section('Configuration');
    for (const key of ['webhookTimeoutMs', 'webhookAllow', 'secretKey'] as const) {
      const { flag, env, default: fallback }: Setting<unknown> = SETTINGS[key];
      const row = table.split('\n').find((line) => line.includes(`\`${env}\``));
      assert.ok(row, `a row for ${env}`);
      if (flag?.startsWith('--')) assert.ok(row.includes(`\`${flag} `), `${env}: ${flag}`);
      if (fallback !== undefined && fallback !== '')
        assert.ok(row.includes(` ${fallback} `), `${env}: ${fallback}`);
    }
  });

  it("gives the code's retry schedule", () => {
    const name = (ms: number) =>
      ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`;
    const names = RETRY_DELAYS_MS.map(name);
    const schedule = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    const text = section('Opt-in retries').replace(/\s+/g, ' ');
    assert.ok(text.includes(schedule), `the schedule reads "${schedule}"`);
    assert.ok(text.includes(`at most ${RETRY_DELAYS_MS.length + 1} attempts`));
  });

  it('says refused only of ranges the production policy refuses', () => {
    const policy = addressPolicy({ allowLoopback: false, allow: [] });
    const text = section('Where webhooks may go (SSRF)');
    const listed = [...text.matchAll(/`([0-9a-f.:]+)(?:\/(\d+))?`/g)].map((m) => m[1] ?? '');
    assert.ok(listed.length >= 20, `the section lists the ranges (${listed.length})`);
    for (const address of listed) assert.equal(policy(address).allowed, false, `${address} is refused`);
    assert.equal(policy('::ffff:10.0.0.1').allowed, false);
  });
});
