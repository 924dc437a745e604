/**
 * Issue 11, point 5 and issue 17, point 2: can the time of a form that takes an e-mail address tell
 * whether the address has an account, or what kind? Against `npm start` (a process of its own, the
 * production password-hash cost: scrypt N=2^17, r=8, p=1), one request at a time, the cases
 * interleaved in a fresh random order every round: v1 login with an unknown address, a known one
 * with a wrong password, an unverified and a deleted account (each a wrong password: all four answer
 * 400 10002); the dashboard's login with an unknown, a known and a password-less (social) address;
 * sign-up with a new, a taken and a deleted account's address; forgot-password and resend with an
 * unknown and a known one; verify and reset with a wrong code for an account that holds a live code
 * (asked for just before, untimed) and for an unknown, a verified or a deleted address. Each case is
 * compared with its known-address counterpart by a Mann–Whitney U test and a bootstrap 95% interval of
 * the difference of medians. The limits would refuse most of these attempts: the server runs with
 * --no-rate-limit, which takes the same limiter calls out of every case alike.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLockcloud, tempDir } from './lib/processes.ts';
import { fmtMs, median, progress, QUICK, quantile, report, type Target } from './lib/report.ts';
import { bootstrapMedianDifference, mannWhitney } from './lib/stats.ts';

const ROUNDS = QUICK ? 30 : 120;
const WARMUP = 5;
/** Below this p, the two cases are told apart: the verdict the target reports. */
const ALPHA = 0.01;

const KNOWN = 'known@example.com';
const UNVERIFIED = 'unverified@example.com';
const DELETED = 'deleted@example.com';
const SOCIAL = 'social@example.com';
const PASSWORD = 'the-right-password-0123';
/** A code for the verify and reset cases: wrong unless the mailed one happens to be it (1 in 10^6). */
const CODE = '000000';

const dir = tempDir();
const seedFile = join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [
      { email: KNOWN, password: PASSWORD, verified: true },
      { email: UNVERIFIED, password: PASSWORD, verified: false },
      { email: DELETED, password: PASSWORD, verified: true },
      { email: SOCIAL, password: null, verified: true },
    ],
  }),
);
progress('starting lockcloud (production password hashing, --no-rate-limit)');
const server = await startLockcloud(['--data', join(dir, 'data'), '--seed', seedFile, '--no-rate-limit']);
const url = server.url;
const gone = await fetch(`${url}/_sim/accounts/${DELETED}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ deleted: true }),
});
if (gone.status !== 200) throw new Error(`could not delete ${DELETED}: ${gone.status}`);

// One dashboard visitor: its anonymous cookie and the CSRF token its forms carry.
const page = await fetch(`${url}/dashboard/login`);
const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';

let unknownCount = 0;
/** A different never-seen address each time, as an enumerating attacker sends. */
const unknown = (): string => `nobody-${unknownCount++}@example.com`;

async function timed(expect: number, path: string, init: RequestInit): Promise<number> {
  const started = performance.now();
  const res = await fetch(url + path, { ...init, redirect: 'manual' });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== expect) throw new Error(`${path}: ${res.status}, expected ${expect}`);
  return ms;
}
const v1 = (email: string) => () =>
  timed(400, '/v1/accounts/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a-wrong-password' }),
  });
const form = (path: string, expect: number, fields: Record<string, string>) => () =>
  timed(expect, `/dashboard${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });

/**
 * Asks for a fresh code for `email` (untimed) and waits until it is mailed: the sandbox's mailbox
 * answers once every mail promised so far is sent. It is read for an address that never gets mail,
 * the same small answer in every case: the accounts' own mailboxes grow to hundreds of mails by the
 * end, and reading one would give their cases more work just before the timed request.
 */
async function liveCode(path: '/forgot' | '/verify/resend', email: string): Promise<void> {
  await fetch(`${url}/dashboard${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, email }).toString(),
  }).then((res) => res.arrayBuffer());
  await fetch(`${url}/_sim/mailbox?to=nobody-mails-here%40example.com`).then((res) => res.arrayBuffer());
}
const resetForm = (email: string) => ({ email, code: CODE, password: 'a-new-long-password' });
/** Asks for a code for the address (untimed, `ask`), then times a wrong code for it (`check`). */
const afterAsking =
  (
    ask: '/forgot' | '/verify/resend',
    address: () => string,
    check: '/verify' | '/reset',
    fields: (email: string) => Record<string, string>,
  ) =>
  async (): Promise<number> => {
    const email = address();
    await liveCode(ask, email);
    return form(check, 400, fields(email))();
  };

interface Case {
  readonly label: string;
  readonly run: () => Promise<number>;
  /** The case it must not be told apart from. */
  readonly versus?: string;
  readonly samples: number[];
}
const cases: Case[] = [
  { label: 'v1 login, known address, wrong password', run: v1(KNOWN), samples: [] },
  {
    label: 'v1 login, unknown address',
    run: () => v1(unknown())(),
    versus: 'v1 login, known address, wrong password',
    samples: [],
  },
  {
    label: 'v1 login, unverified account, wrong password',
    run: v1(UNVERIFIED),
    versus: 'v1 login, known address, wrong password',
    samples: [],
  },
  {
    label: 'v1 login, deleted account',
    run: v1(DELETED),
    versus: 'v1 login, known address, wrong password',
    samples: [],
  },
  {
    label: 'dashboard login, known address, wrong password',
    run: form('/login', 400, { email: KNOWN, password: 'a-wrong-password' }),
    samples: [],
  },
  {
    label: 'dashboard login, unknown address',
    run: () => form('/login', 400, { email: unknown(), password: 'a-wrong-password' })(),
    versus: 'dashboard login, known address, wrong password',
    samples: [],
  },
  {
    label: 'dashboard login, password-less (social) account',
    run: form('/login', 400, { email: SOCIAL, password: 'a-wrong-password' }),
    versus: 'dashboard login, known address, wrong password',
    samples: [],
  },
  {
    label: 'sign-up, taken address',
    run: form('/signup', 303, { email: KNOWN, password: 'a-long-password' }),
    samples: [],
  },
  {
    label: 'sign-up, new address',
    run: () => form('/signup', 303, { email: unknown(), password: 'a-long-password' })(),
    versus: 'sign-up, taken address',
    samples: [],
  },
  {
    label: "sign-up, a deleted account's address",
    run: form('/signup', 303, { email: DELETED, password: 'a-long-password' }),
    versus: 'sign-up, taken address',
    samples: [],
  },
  { label: 'forgot password, known address', run: form('/forgot', 303, { email: KNOWN }), samples: [] },
  {
    label: 'forgot password, unknown address',
    run: () => form('/forgot', 303, { email: unknown() })(),
    versus: 'forgot password, known address',
    samples: [],
  },
  {
    label: 'resend, unverified account',
    run: form('/verify/resend', 200, { email: UNVERIFIED }),
    samples: [],
  },
  {
    label: 'resend, unknown address',
    run: () => form('/verify/resend', 200, { email: unknown() })(),
    versus: 'resend, unverified account',
    samples: [],
  },
  // Every verify and reset case first asks for a code for its address (untimed), as an attacker
  // making a code live would: only the real accounts get one, and every case has touched its
  // address's rows just before, so none is timed with warmer caches than another.
  {
    label: 'verify, unverified account holding a live code, wrong code',
    run: afterAsking(
      '/verify/resend',
      () => UNVERIFIED,
      '/verify',
      (email) => ({ email, code: CODE }),
    ),
    samples: [],
  },
  {
    label: 'verify, unknown address',
    run: afterAsking('/verify/resend', unknown, '/verify', (email) => ({ email, code: CODE })),
    versus: 'verify, unverified account holding a live code, wrong code',
    samples: [],
  },
  {
    label: 'verify, verified account',
    run: afterAsking(
      '/verify/resend',
      () => KNOWN,
      '/verify',
      (email) => ({ email, code: CODE }),
    ),
    versus: 'verify, unverified account holding a live code, wrong code',
    samples: [],
  },
  {
    label: 'reset, account holding a live code, wrong code',
    run: afterAsking('/forgot', () => KNOWN, '/reset', resetForm),
    samples: [],
  },
  {
    label: 'reset, unknown address',
    run: afterAsking('/forgot', unknown, '/reset', resetForm),
    versus: 'reset, account holding a live code, wrong code',
    samples: [],
  },
  {
    label: 'reset, deleted account',
    run: afterAsking('/forgot', () => DELETED, '/reset', resetForm),
    versus: 'reset, account holding a live code, wrong code',
    samples: [],
  },
];

function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

progress(`${WARMUP} warm-up rounds, then ${ROUNDS} measured rounds of ${cases.length} requests`);
for (let round = -WARMUP; round < ROUNDS; round++) {
  for (const c of shuffled(cases)) {
    const ms = await c.run();
    if (round >= 0) c.samples.push(ms);
  }
  if (round > 0 && round % 20 === 0) progress(`round ${round} of ${ROUNDS}`);
}
await server.stop();

const byLabel = new Map(cases.map((c) => [c.label, c]));
const targets: Target[] = [];
const rows = cases.map((c) => {
  const base = c.versus === undefined ? undefined : byLabel.get(c.versus);
  const cells = [
    c.label,
    String(c.samples.length),
    fmtMs(median(c.samples)),
    fmtMs(quantile(c.samples, 0.9)),
  ];
  if (!base) return [...cells, '(reference)', '', ''];
  const mw = mannWhitney(c.samples, base.samples);
  const ci = bootstrapMedianDifference(c.samples, base.samples);
  const diff = median(c.samples) - median(base.samples);
  const interval = `${diff >= 0 ? '+' : ''}${diff.toFixed(2)} ms [${ci.low.toFixed(2)}, ${ci.high.toFixed(2)}]`;
  targets.push({
    point: '5',
    what: `${c.label} vs ${base.label}`,
    target: `indistinguishable (Mann–Whitney p ≥ ${ALPHA})`,
    measured: `p = ${mw.p.toFixed(3)}, Δmedian ${interval}`,
    met: mw.p >= ALPHA,
  });
  return [...cells, interval, mw.p.toFixed(3), mw.commonLanguage.toFixed(2)];
});

report({
  name: 'login-timing',
  title: `Login and account-form timing: unknown vs known e-mail (${ROUNDS} interleaved rounds, one request at a time)`,
  columns: [
    'case',
    'n',
    'median',
    'p90',
    'Δ median vs reference [95% bootstrap CI]',
    'Mann–Whitney p',
    'P(slower)',
  ],
  rows,
  targets,
  notes: [
    'one server process, production scrypt cost (N=2^17, r=8, p=1), --no-rate-limit; times measured by the client over loopback keep-alive',
    'P(slower): the probability that a sample of the case is slower than one of its reference (0.5: neither tends to be slower)',
  ],
});
process.exit(0);
