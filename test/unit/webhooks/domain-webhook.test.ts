/** The webhook's pure rules: which URLs are taken, the substitution, the body, the retry schedule. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DELIVERY_LOG_LIMIT,
  deliveryBody,
  isWebhookMethod,
  MAX_RETRY_AFTER_MS,
  nextAttemptDelay,
  RETRY_DELAYS_MS,
  SECRET_OVERLAP_MS,
  stateName,
  substitute,
  WEBHOOK_URL_MAX,
  webhookUrlProblem,
} from '../../../src/domain/webhook.ts';

const UUID = '00000000-0000-4000-8000-00000000000a';

/** An https URL of exactly `length` characters. */
function urlOfLength(length: number): string {
  const start = 'https://hooks.example.com/';
  return start + 'a'.repeat(length - start.length);
}

describe('webhookUrlProblem', () => {
  it('takes http and https URLs of up to 256 characters, with or without placeholders', () => {
    assert.equal(WEBHOOK_URL_MAX, 256);
    for (const url of [
      'http://hooks.example.com/',
      'https://hooks.example.com/lock',
      'https://hooks.example.com:8443/x?y=1#z',
      'HTTPS://HOOKS.EXAMPLE.COM/',
      'https://hooks.example.com/{device_id}/{state}',
      'https://hooks.example.com/hook?device={device_id}&state={state}',
      'https://{device_id}.hooks.example.com/{state}',
      'http://127.0.0.1:8080/', // where it may go is the transport's policy, not the URL's
      'http://[::1]:8080/',
      urlOfLength(256),
    ]) {
      assert.equal(webhookUrlProblem(url), undefined, url);
    }
  });

  it('counts exactly: 256 characters are taken, 257 refused', () => {
    assert.equal(urlOfLength(256).length, 256);
    assert.equal(urlOfLength(257).length, 257);
    assert.equal(webhookUrlProblem(urlOfLength(256)), undefined);
    assert.equal(webhookUrlProblem(urlOfLength(257)), 'must be at most 256 characters');
    // The template is what is counted, not the URL after substitution (a UUID is longer than {device_id}).
    const template = `${urlOfLength(256 - '{device_id}'.length)}{device_id}`;
    assert.equal(template.length, 256);
    assert.equal(webhookUrlProblem(template), undefined);
    assert.equal(webhookUrlProblem(`${template}x`), 'must be at most 256 characters');
  });

  it('refuses an empty URL, what is not a URL, and schemes other than http(s)', () => {
    assert.equal(webhookUrlProblem(''), 'must not be empty');
    for (const url of ['hooks.example.com/x', '/relative', 'http://', 'https://exa mple.com/', 'not a url']) {
      assert.equal(webhookUrlProblem(url), 'is not a URL', url);
    }
    for (const url of [
      'ftp://hooks.example.com/',
      'file:///etc/passwd',
      'ws://hooks.example.com/',
      'javascript:alert(1)',
      'data:text/plain,x',
      'gopher://hooks.example.com/',
    ]) {
      assert.equal(webhookUrlProblem(url), 'must be http or https', url);
    }
  });

  it('refuses credentials in the URL (user, user and password, even empty ones around a colon)', () => {
    for (const url of [
      'https://user:pass@hooks.example.com/',
      'https://user@hooks.example.com/',
      'https://:pass@hooks.example.com/',
      'http://admin:admin@127.0.0.1/',
    ]) {
      assert.equal(webhookUrlProblem(url), 'must not carry credentials', url);
    }
  });
});

describe('isWebhookMethod', () => {
  it('is GET or POST, exactly', () => {
    assert.equal(isWebhookMethod('GET'), true);
    assert.equal(isWebhookMethod('POST'), true);
    for (const other of ['get', 'post', 'PUT', 'DELETE', 'PATCH', '', null, undefined, 1]) {
      assert.equal(isWebhookMethod(other), false, String(other));
    }
  });
});

describe('substitute', () => {
  it('puts the UUID for {device_id} and locked or unlocked for {state}, every time they appear', () => {
    assert.equal(
      substitute('https://h.example/{device_id}/{state}?again={device_id}&s={state}', UUID, 'unlocked'),
      `https://h.example/${UUID}/unlocked?again=${UUID}&s=unlocked`,
    );
    assert.equal(substitute('https://h.example/{state}', UUID, 'locked'), 'https://h.example/locked');
    assert.equal(substitute('https://h.example/plain', UUID, 'locked'), 'https://h.example/plain');
  });

  it('leaves other braces and look-alikes alone', () => {
    assert.equal(
      substitute('https://h.example/{device}/{STATE}/{ state }/{device_id', UUID, 'locked'),
      'https://h.example/{device}/{STATE}/{ state }/{device_id',
    );
  });

  it('names the states', () => {
    assert.equal(stateName(true), 'locked');
    assert.equal(stateName(false), 'unlocked');
  });
});

describe('deliveryBody', () => {
  it('is exactly the JSON docs/decisions.md gives, keys in order, no spaces', () => {
    assert.equal(deliveryBody(UUID, true), `{"device_id":"${UUID}","locked":true,"state":"locked"}`);
    assert.equal(deliveryBody(UUID, false), `{"device_id":"${UUID}","locked":false,"state":"unlocked"}`);
  });
});

describe('nextAttemptDelay (opt-in retries)', () => {
  it('follows the schedule 5 s, 30 s, 2 min, 10 min, 1 h, then stops', () => {
    assert.deepEqual([...RETRY_DELAYS_MS], [5_000, 30_000, 120_000, 600_000, 3_600_000]);
    assert.equal(nextAttemptDelay(1, 500, undefined), 5_000);
    assert.equal(nextAttemptDelay(2, 500, undefined), 30_000);
    assert.equal(nextAttemptDelay(3, 500, undefined), 120_000);
    assert.equal(nextAttemptDelay(4, 500, undefined), 600_000);
    assert.equal(nextAttemptDelay(5, 500, undefined), 3_600_000);
    assert.equal(nextAttemptDelay(6, 500, undefined), undefined, 'the sixth attempt was the last');
    assert.equal(nextAttemptDelay(7, undefined, undefined), undefined);
  });

  it('does not retry what succeeded (every 2xx)', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      assert.equal(nextAttemptDelay(1, status, undefined), undefined, String(status));
    }
  });

  it('does not retry 410 Gone, nor a 4xx that asking again will not change', () => {
    for (const status of [400, 401, 403, 404, 405, 410, 413, 422, 499]) {
      assert.equal(nextAttemptDelay(1, status, undefined), undefined, String(status));
      assert.equal(nextAttemptDelay(1, status, 1_000), undefined, `${status} with Retry-After`);
    }
  });

  it('retries 408 and 429, every 5xx, and network errors (no status)', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 599, undefined]) {
      assert.equal(nextAttemptDelay(1, status, undefined), 5_000, String(status));
      assert.equal(nextAttemptDelay(3, status, undefined), 120_000, String(status));
    }
  });

  it('waits for Retry-After when it is longer than the schedule, never longer than an hour, never shorter than the schedule', () => {
    assert.equal(MAX_RETRY_AFTER_MS, 3_600_000);
    assert.equal(nextAttemptDelay(1, 429, 60_000), 60_000, 'longer than 5 s: Retry-After');
    assert.equal(nextAttemptDelay(1, 503, 1_000), 5_000, 'shorter: the schedule');
    assert.equal(nextAttemptDelay(1, 429, 0), 5_000, 'zero: the schedule');
    assert.equal(nextAttemptDelay(1, 429, 86_400_000), 3_600_000, 'a day: clamped to an hour');
    assert.equal(nextAttemptDelay(5, 429, 86_400_000), 3_600_000);
    assert.equal(nextAttemptDelay(6, 429, 1_000), undefined, 'Retry-After does not extend the schedule');
  });
});

describe('the other webhook constants', () => {
  it('keeps the previous secret 24 h, and 500 log entries per account', () => {
    assert.equal(SECRET_OVERLAP_MS, 24 * 60 * 60 * 1000);
    assert.equal(DELIVERY_LOG_LIMIT, 500);
  });
});
