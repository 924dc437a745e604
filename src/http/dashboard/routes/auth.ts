import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { KNOWN_CLIENT_MS } from '../../../app/login.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { cookieOptions, DEVICE_COOKIE, SESSION_COOKIE, state } from '../context.ts';
import { refusedForm } from '../errors.ts';
import { type Flashes, handleOf, redirectRefused, refusedStatus } from '../flash.ts';
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
 * The refused form's page: the stored refusal once (its errors, refilled values and status), else
 * the plain form with what the query says. A reload after the handle was used shows the plain form.
 */
function shown(
  flashes: Flashes,
  request: FastifyRequest,
  reply: FastifyReply,
  render: (s: Partial<FormState> & { unverified?: boolean; next?: string }) => Html,
): FastifyReply {
  const q = query(request);
  const refused = flashes.take(state(request).csrf, handleOf(request))?.refused;
  if (refused === undefined)
    return sendPage(
      reply,
      render({ notice: okNotice(request), next: q.next, values: { email: q.email ?? '' } }),
    );
  const { values = {} } = refused;
  return sendPage(
    reply,
    render({
      notice: refused.notice,
      ...(refused.errors ? { errors: refused.errors } : {}),
      values: { email: values.email ?? '' },
      next: values.next,
      unverified: refused.unverified === true,
    }),
    refusedStatus(reply, refused),
  );
}

export function authRoutes(
  app: FastifyInstance,
  lockcloud: Lockcloud,
  sandbox: boolean,
  flashes: Flashes,
): void {
  const { accounts } = lockcloud;
  // In the sandbox no mail leaves the server: the pages that wait for one say where it is read.
  const base = (request: FastifyRequest) => ({ csrf: state(request).csrf, sandboxMail: sandbox });
  /**
   * A refused form: 303 to its page with the refusal under a one-time handle, so a reload sends
   * nothing again. Only the address (and login's `next`) is refilled: never a password or a code.
   */
  const refuse = (
    request: FastifyRequest,
    reply: FastifyReply,
    to: string,
    error: unknown,
    fields: readonly string[],
    values: Record<string, string>,
  ) => {
    const refused = refusedForm(error, fields);
    const unverified = isDomainError(error) && error.code === 'EMAIL_NOT_VERIFIED';
    return redirectRefused(flashes, request, reply, to, {
      ...refused,
      values,
      ...(unverified ? { unverified } : {}),
    });
  };

  app.get('/', HIDDEN, async (request, reply) =>
    reply.redirect(state(request).me ? '/dashboard/locks' : '/dashboard/login'),
  );

  app.get('/login', HIDDEN, async (request, reply) => {
    if (state(request).me) return reply.redirect('/dashboard/locks');
    return shown(flashes, request, reply, (s) => loginPage({ ...base(request), ...s }));
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
      // Not verified yet (the password matched): the page offers the way on, to the code or a new one.
      const values = { email: f.email ?? '', ...(f.next === undefined ? {} : { next: f.next }) };
      return refuse(request, reply, '/dashboard/login', error, [], values);
    }
  });

  app.post('/logout', HIDDEN, async (request, reply) => {
    await accounts.sessions.logOut(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
    return reply.redirect('/dashboard/login?ok=logged-out', 303);
  });

  app.get('/signup', HIDDEN, async (request, reply) =>
    shown(flashes, request, reply, (s) => signUpPage({ ...base(request), ...s })),
  );

  app.post('/signup', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const email = await accounts.signUp.signUp(f.email, f.password, request.ip);
      return reply.redirect(`/dashboard/verify?ok=signed-up&email=${encodeURIComponent(email)}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(request, reply, '/dashboard/signup', error, ['email', 'password'], values);
    }
  });

  app.get('/verify', HIDDEN, async (request, reply) =>
    shown(flashes, request, reply, (s) => verifyPage({ ...base(request), ...s })),
  );

  app.post('/verify', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      await accounts.signUp.verify(f.email, f.code, request.ip);
      return reply.redirect(`/dashboard/login?ok=verified&email=${encodeURIComponent(f.email ?? '')}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(request, reply, '/dashboard/verify', error, ['email', 'code'], values);
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
      return refuse(request, reply, '/dashboard/verify', error, ['email'], values);
    }
  });

  app.get('/forgot', HIDDEN, async (request, reply) =>
    shown(flashes, request, reply, (s) => forgotPage({ ...base(request), ...s })),
  );

  app.post('/forgot', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const email = await accounts.passwordReset.request(f.email, request.ip);
      return reply.redirect(`/dashboard/reset?ok=code-sent&email=${encodeURIComponent(email)}`, 303);
    } catch (error) {
      const values = { email: f.email ?? '' };
      return refuse(request, reply, '/dashboard/forgot', error, ['email'], values);
    }
  });

  app.get('/reset', HIDDEN, async (request, reply) =>
    shown(flashes, request, reply, (s) => resetPage({ ...base(request), ...s })),
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
      return refuse(request, reply, '/dashboard/reset', error, ['email', 'code', 'password'], values);
    }
  });
}
