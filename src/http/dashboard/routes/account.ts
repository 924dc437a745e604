import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { cookieOptions, SESSION_COOKIE, state } from '../context.ts';
import { refusedForm } from '../errors.ts';
import { type Flashes, handleOf, redirectRefused, redirectWithNotice, refusedStatus } from '../flash.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { type AccountView, accountPage } from '../views/account-page.ts';

export function accountRoutes(app: FastifyInstance, lockcloud: Lockcloud, flashes: Flashes): void {
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
  ) {
    const { account } = me(request);
    const view = { hasPassword: account.passwordHash !== null, createdAt: account.createdAt, ...extra };
    return sendPage(reply, accountPage({ csrf: state(request).csrf, email: account.email }, view), status);
  }

  /**
   * A refused form: 303 to the page with every error at once under a one-time handle (a reload sends
   * no password again). The delete form's password field is named apart from the change form's.
   */
  function refused(request: FastifyRequest, reply: FastifyReply, error: unknown, passwordField: string) {
    const fields = ['current_password', 'new_password', 'confirm_email'];
    const refusal = refusedForm(error, fields, { current_password: passwordField });
    return redirectRefused(flashes, request, reply, '/dashboard/account', refusal);
  }

  app.get('/account', HIDDEN, (request, reply) => {
    const flash = flashes.take(state(request).csrf, handleOf(request));
    const { refused } = flash ?? {};
    if (refused === undefined) return render(request, reply, flash?.notice ? { notice: flash.notice } : {});
    const extra = { notice: refused.notice, ...(refused.errors ? { errors: refused.errors } : {}) };
    return render(request, reply, extra, refusedStatus(reply, refused));
  });

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
      // The page after the redirect is read in the new session: the notice is kept for it.
      return redirectWithNotice(
        flashes,
        request,
        reply,
        '/dashboard/account',
        notice,
        sessions.csrfToken(token),
      );
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
