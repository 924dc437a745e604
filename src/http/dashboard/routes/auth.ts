import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { KNOWN_CLIENT_MS } from '../../../app/login.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { cookieOptions, DEVICE_COOKIE, SESSION_COOKIE, state } from '../context.ts';
import { fieldErrors, refusalOf } from '../errors.ts';
import type { Html } from '../html.ts';
import { form, HIDDEN, query, safeNext, sendPage } from '../reply.ts';
import {
  type FormState,
  forgotPage,
  loginPage,
  resetPage,
  signUpPage,
  verifyPage,
} from '../views/auth-pages.ts';
import type { Notice } from '../views/layout.ts';

const OK_NOTICES: Record<string, string> = {
  verified: 'Your e-mail address is verified. Log in.',
  'password-set': 'Your new password is set. Log in with it.',
  'logged-out': 'You are logged out.',
  deleted: 'Your account is deleted.',
  'code-sent': 'If an account has this address, a code is on its way. Check your mail.',
  'signed-up': 'Check your mail: we sent you a 6-digit code.',
  resent: 'If this address waits for verification, a new code is on its way.',
};

function okNotice(request: FastifyRequest): Notice | undefined {
  const text = OK_NOTICES[query(request).ok ?? ''];
  return text === undefined ? undefined : { kind: 'success', text };
}

/**
 * Re-renders the form with the refusal: next to its field when it names one, else on top. Errors
 * that are not the domain's go to the plugin's error handler.
 */
export function refuse(
  reply: FastifyReply,
  error: unknown,
  render: (s: Partial<FormState>) => Html,
  fields: readonly string[],
): FastifyReply {
  if (!isDomainError(error)) throw error;
  const r = refusalOf(error);
  if (r.retryAfterSeconds !== undefined) reply.header('retry-after', String(r.retryAfterSeconds));
  // Every field the form got wrong, each next to its field; the rest (if any) on top.
  const errors = Object.fromEntries(Object.entries(fieldErrors(r)).filter(([name]) => fields.includes(name)));
  const s =
    Object.keys(errors).length > 0
      ? { errors, notice: { kind: 'error' as const, text: 'Check the form.' } }
      : { notice: { kind: 'error' as const, text: r.message } };
  return sendPage(reply, render(s), r.status);
}

export function authRoutes(app: FastifyInstance, lockcloud: Lockcloud, sandbox: boolean): void {
  const { accounts } = lockcloud;
  // In the sandbox no mail leaves the server: the pages that wait for one say where it is read.
  const base = (request: FastifyRequest) => ({ csrf: state(request).csrf, sandboxMail: sandbox });

  app.get('/', HIDDEN, async (request, reply) =>
    reply.redirect(state(request).me ? '/dashboard/locks' : '/dashboard/login'),
  );

  app.get('/login', HIDDEN, async (request, reply) => {
    if (state(request).me) return reply.redirect('/dashboard/locks');
    const q = query(request);
    return sendPage(
      reply,
      loginPage({
        ...base(request),
        notice: okNotice(request),
        next: q.next,
        values: { email: q.email ?? '' },
      }),
    );
  });

  app.post('/login', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const { token, device } = await accounts.sessions.logIn(
        f.email,
        f.password,
        request.ip,
        request.cookies[DEVICE_COOKIE],
      );
      reply.setCookie(SESSION_COOKIE, token, cookieOptions(request));
      reply.setCookie(DEVICE_COOKIE, device, cookieOptions(request, KNOWN_CLIENT_MS / 1000));
      return reply.redirect(safeNext(f.next), 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      // Not verified yet (the password matched): the way on, to the code or a new one.
      const unverified = isDomainError(error) && error.code === 'EMAIL_NOT_VERIFIED';
      return refuse(
        reply,
        error,
        (s) => loginPage({ ...base(request), ...s, values, next: f.next, unverified }),
        [],
      );
    }
  });

  app.post('/logout', HIDDEN, async (request, reply) => {
    await accounts.sessions.logOut(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
    return reply.redirect('/dashboard/login?ok=logged-out', 303);
  });

  app.get('/signup', HIDDEN, async (request, reply) => sendPage(reply, signUpPage(base(request))));

  app.post('/signup', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const email = await accounts.signUp.signUp(f.email, f.password, request.ip);
      return reply.redirect(`/dashboard/verify?ok=signed-up&email=${encodeURIComponent(email)}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(reply, error, (s) => signUpPage({ ...base(request), ...s, values }), [
        'email',
        'password',
      ]);
    }
  });

  app.get('/verify', HIDDEN, async (request, reply) =>
    sendPage(
      reply,
      verifyPage({
        ...base(request),
        notice: okNotice(request),
        values: { email: query(request).email ?? '' },
      }),
    ),
  );

  app.post('/verify', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      await accounts.signUp.verify(f.email, f.code, request.ip);
      return reply.redirect(`/dashboard/login?ok=verified&email=${encodeURIComponent(f.email ?? '')}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(reply, error, (s) => verifyPage({ ...base(request), ...s, values }), ['email', 'code']);
    }
  });

  app.post('/verify/resend', HIDDEN, async (request, reply) => {
    const f = form(request);
    const values = { email: f.email ?? '' };
    try {
      await accounts.signUp.resend(f.email, request.ip);
      const email = encodeURIComponent((f.email ?? '').trim());
      return reply.redirect(`/dashboard/verify?ok=resent&email=${email}`, 303);
    } catch (error) {
      return refuse(reply, error, (s) => verifyPage({ ...base(request), ...s, values }), ['email']);
    }
  });

  app.get('/forgot', HIDDEN, async (request, reply) =>
    sendPage(reply, forgotPage({ ...base(request), values: { email: query(request).email ?? '' } })),
  );

  app.post('/forgot', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const email = await accounts.passwordReset.request(f.email, request.ip);
      return reply.redirect(`/dashboard/reset?ok=code-sent&email=${encodeURIComponent(email)}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(reply, error, (s) => forgotPage({ ...base(request), ...s, values }), ['email']);
    }
  });

  app.get('/reset', HIDDEN, async (request, reply) =>
    sendPage(
      reply,
      resetPage({
        ...base(request),
        notice: okNotice(request),
        values: { email: query(request).email ?? '' },
      }),
    ),
  );

  app.post('/reset', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      await accounts.passwordReset.reset(f.email, f.code, f.password, request.ip);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect(
        `/dashboard/login?ok=password-set&email=${encodeURIComponent(f.email ?? '')}`,
        303,
      );
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(reply, error, (s) => resetPage({ ...base(request), ...s, values }), [
        'email',
        'code',
        'password',
      ]);
    }
  });
}
