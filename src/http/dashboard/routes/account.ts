import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { cookieOptions, SESSION_COOKIE, state } from '../context.ts';
import { refusalOf } from '../errors.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { type AccountView, accountPage } from '../views/account-page.ts';

export function accountRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const { settings, sessions } = lockcloud.accounts;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('account route ran without a session');
    return signedIn;
  };

  function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<AccountView> = {},
    status = 200,
    csrf = state(request).csrf,
  ) {
    const { account } = me(request);
    const view = { hasPassword: account.passwordHash !== null, createdAt: account.createdAt, ...extra };
    return sendPage(reply, accountPage({ csrf, email: account.email }, view), status);
  }

  function refused(request: FastifyRequest, reply: FastifyReply, error: unknown, passwordField: string) {
    if (!isDomainError(error)) throw error;
    const r = refusalOf(error);
    if (r.retryAfterSeconds !== undefined) reply.header('retry-after', String(r.retryAfterSeconds));
    const field = r.field === 'current_password' ? passwordField : r.field;
    const extra: Partial<AccountView> =
      field !== undefined
        ? { errors: { [field]: r.message }, notice: { kind: 'error', text: 'Check the form.' } }
        : { notice: { kind: 'error', text: r.message } };
    return render(request, reply, extra, r.status);
  }

  app.get('/account', HIDDEN, (request, reply) => render(request, reply));

  app.post('/account/password', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      const { token } = await settings.changePassword(
        me(request),
        f.current_password,
        f.new_password,
        request.ip,
      );
      // Every session ended with the change; this browser carries on in a new one.
      reply.setCookie(SESSION_COOKIE, token, cookieOptions(request));
      const notice = {
        kind: 'success' as const,
        text: 'Your password is changed. Other browsers and v1 logins are signed out.',
      };
      return render(request, reply, { notice }, 200, sessions.csrfToken(token));
    } catch (error) {
      return refused(request, reply, error, 'current_password');
    }
  });

  app.post('/account/delete', HIDDEN, async (request, reply) => {
    const f = form(request);
    try {
      await settings.deleteAccount(me(request), f.password, f.confirm_email, request.ip);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect('/dashboard/login?ok=deleted', 303);
    } catch (error) {
      return refused(request, reply, error, 'delete_password');
    }
  });
}
