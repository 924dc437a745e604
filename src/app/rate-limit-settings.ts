import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import {
  DEFAULT_RATE_LIMITS,
  type EndpointLimit,
  LIMITED_ENDPOINTS,
  type LimitedEndpoint,
  OAUTH_LIMITED_ENDPOINTS,
  type OAuthLimitedEndpoint,
  type RateLimitSettings,
  type RatePolicy,
} from '../domain/rate-limit.ts';

const Rate = Type.Object(
  {
    burst: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'requests allowed at once' }),
    per_second: Type.Number({
      minimum: 1,
      maximum: 1_000_000,
      description: 'steady rate; at least 1 (docs/decisions.md)',
    }),
  },
  { additionalProperties: false },
);

const Endpoint = Type.Object(
  { account: Type.Optional(Rate), ip: Type.Optional(Rate) },
  { additionalProperties: false },
);

/** The rate-limits file (docs/rate-limits.md): any subset of the defaults. */
export const RateLimitsFile = Type.Object(
  {
    endpoints: Type.Optional(
      Type.Object(Object.fromEntries(LIMITED_ENDPOINTS.map((e) => [e, Type.Optional(Endpoint)])), {
        additionalProperties: false,
      }),
    ),
    // Per client address (docs/rate-limits.md, "OAuth").
    oauth: Type.Optional(
      Type.Object(Object.fromEntries(OAUTH_LIMITED_ENDPOINTS.map((e) => [e, Type.Optional(Rate)])), {
        additionalProperties: false,
      }),
    ),
    // One lock's commands, per account, over every surface (docs/rate-limits.md, "The command budget").
    commands: Type.Optional(Rate),
    block: Type.Optional(
      Type.Object(
        {
          excess: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          window_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
          block_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 60 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
type RateLimitsFile = Static<typeof RateLimitsFile>;

export class RateLimitsFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the rate-limits file is not valid:\n  ${problems.join('\n  ')}`);
    this.name = 'RateLimitsFileError';
  }
}

/** `/endpoints/GET ~1public~1locks/ip` (a JSON pointer) -> `endpoints["GET /public/locks"].ip`. */
function fieldName(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length === 0) return '(the file)';
  return parts.map((p, i) => (/^[a-z_]+$/.test(p) ? (i === 0 ? p : `.${p}`) : `["${p}"]`)).join('');
}

const toPolicy = (rate: { burst: number; per_second: number }): RatePolicy => ({
  burst: rate.burst,
  intervalMs: 1000 / rate.per_second,
});

/** The defaults with the file's values laid over them; every problem reported at once. */
export function parseRateLimits(text: string): RateLimitSettings {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new RateLimitsFileError([`not valid JSON (${(error as Error).message})`]);
  }
  const problems = [...Value.Errors(RateLimitsFile, input)]
    .filter((e) => e.keyword !== 'additionalProperties')
    .map(
      (e) => `${fieldName(e.instancePath)}: ${e.keyword === 'boolean' ? 'is not a known field' : e.message}`,
    );
  if (problems.length > 0) throw new RateLimitsFileError(problems);
  const file = input as RateLimitsFile;
  const endpoints = { ...DEFAULT_RATE_LIMITS.endpoints };
  for (const name of LIMITED_ENDPOINTS) {
    const given = (
      file.endpoints as Partial<Record<LimitedEndpoint, { account?: never; ip?: never }>> | undefined
    )?.[name] as { account?: Static<typeof Rate>; ip?: Static<typeof Rate> } | undefined;
    if (!given) continue;
    const current: EndpointLimit = endpoints[name];
    endpoints[name] = {
      account: given.account ? toPolicy(given.account) : current.account,
      ip: given.ip ? toPolicy(given.ip) : current.ip,
    };
  }
  const oauth = { ...DEFAULT_RATE_LIMITS.oauth };
  for (const name of OAUTH_LIMITED_ENDPOINTS) {
    const given = (file.oauth as Partial<Record<OAuthLimitedEndpoint, Static<typeof Rate>>> | undefined)?.[
      name
    ];
    if (given) oauth[name] = toPolicy(given);
  }
  const block = DEFAULT_RATE_LIMITS.block;
  return {
    endpoints,
    oauth,
    commands: file.commands ? toPolicy(file.commands) : DEFAULT_RATE_LIMITS.commands,
    block: {
      excess: file.block?.excess ?? block.excess,
      windowMs: file.block?.window_seconds !== undefined ? file.block.window_seconds * 1000 : block.windowMs,
      blockMs: file.block?.block_minutes !== undefined ? file.block.block_minutes * 60_000 : block.blockMs,
    },
  };
}
