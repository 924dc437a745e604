import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRateLimits, RateLimitsFileError } from '../../../src/app/rate-limit-settings.ts';
import { DEFAULT_RATE_LIMITS } from '../../../src/domain/rate-limit.ts';

function problems(text: string): readonly string[] {
  try {
    parseRateLimits(text);
  } catch (error) {
    assert.ok(error instanceof RateLimitsFileError);
    return error.problems;
  }
  assert.fail('the file was accepted');
}

describe('parseRateLimits (the --rate-limits file)', () => {
  it('an empty object keeps every default', () => {
    assert.deepEqual(parseRateLimits('{}'), DEFAULT_RATE_LIMITS);
  });

  it('lays the given values over the defaults, leaving the rest alone', () => {
    const settings = parseRateLimits(
      JSON.stringify({
        endpoints: { 'GET /public/locks': { ip: { burst: 7, per_second: 2 } } },
        block: { excess: 5, block_minutes: 10 },
      }),
    );
    assert.deepEqual(settings.endpoints['GET /public/locks'], {
      account: DEFAULT_RATE_LIMITS.endpoints['GET /public/locks'].account,
      ip: { burst: 7, intervalMs: 500 },
    });
    assert.deepEqual(
      settings.endpoints['POST /public/lock/{device_id}'],
      DEFAULT_RATE_LIMITS.endpoints['POST /public/lock/{device_id}'],
    );
    assert.deepEqual(settings.block, {
      excess: 5,
      windowMs: DEFAULT_RATE_LIMITS.block.windowMs,
      blockMs: 600_000,
    });
  });

  it('reads the command budget and the /ext endpoints like the others', () => {
    const settings = parseRateLimits(
      JSON.stringify({
        commands: { burst: 4, per_second: 2 },
        endpoints: { 'POST /ext/webhook/test': { account: { burst: 7, per_second: 1 } } },
      }),
    );
    assert.deepEqual(settings.commands, { burst: 4, intervalMs: 500 });
    assert.deepEqual(settings.endpoints['POST /ext/webhook/test'], {
      account: { burst: 7, intervalMs: 1000 },
      ip: DEFAULT_RATE_LIMITS.endpoints['POST /ext/webhook/test'].ip,
    });
    assert.deepEqual(parseRateLimits('{}').commands, DEFAULT_RATE_LIMITS.commands);
    const found = problems(JSON.stringify({ commands: { burst: 4, per_second: 0.5 }, command: {} }));
    assert.ok(
      found.some((p) => p.startsWith('commands.per_second:')),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => p.startsWith('command: is not a known field')),
      found.join('\n'),
    );
  });

  it('reports every problem at once, each naming its field', () => {
    const found = problems(
      JSON.stringify({
        endpoints: { 'GET /public/locks': { ip: { burst: 0, per_second: 1 } }, 'GET /nowhere': {} },
        block: { excess: 'many' },
        extra: true,
      }),
    );
    assert.ok(
      found.some((p) => p.startsWith('endpoints["GET /public/locks"].ip.burst:')),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => p.startsWith('endpoints["GET /nowhere"]: is not a known field')),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => p.startsWith('block.excess:')),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => p.startsWith('extra: is not a known field')),
      found.join('\n'),
    );
  });

  it('refuses a steady rate under 1 a second (docs/decisions.md: 1/s is never throttled) and bad JSON', () => {
    assert.ok(
      problems(
        JSON.stringify({ endpoints: { 'GET /public/locks': { account: { burst: 5, per_second: 0.5 } } } }),
      ).length === 1,
    );
    assert.match(problems('{nope')[0] ?? '', /not valid JSON/);
  });
});
