/**
 * The mailer port: with SMTP_URL the dashboard's codes go out over SMTP (a real smtp-server on a
 * random loopback port here); without it they are stored for /_sim/mailbox and logged without
 * their text. The SMTP settings are checked like every other.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { memoryMailer } from '../../src/adapters/mail/memory-mailer.ts';
import { MemoryMailbox } from '../../src/adapters/system/mailbox.ts';
import { ConfigError, describeConfig, loadConfig } from '../../src/config/config.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { carriedOut, FormClient, latestCode } from './support.ts';

interface Received {
  readonly from: string;
  readonly to: readonly string[];
  readonly data: string;
}

describe('mail over SMTP (SMTP_URL)', () => {
  let smtp: SMTPServer;
  let port: number;
  let t: TestServer;
  const received: Received[] = [];

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
    t = await startServer({
      flags: ['--smtp-url', `smtp://127.0.0.1:${port}`, '--mail-from', 'Lockcloud <codes@lockcloud.test>'],
    });
  });
  after(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('sends the sign-up code through the SMTP server, and keeps the sandbox copy', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    const res = await c.post('/dashboard/signup', {
      email: 'smtp-user@example.com',
      password: 'long-enough-pw',
    });
    assert.ok(carriedOut(res));
    // Sign-up mails after its answer (docs/security.md); the sandbox's mailbox waits for that.
    const sandboxCode = await latestCode(t, 'smtp-user@example.com', /verification code/);
    const mail = received.find((m) => m.to.includes('smtp-user@example.com'));
    assert.ok(mail, 'the mail reached the SMTP server');
    assert.equal(mail.from, 'codes@lockcloud.test');
    assert.match(mail.data, /Subject: Your lockcloud verification code/);
    const code = /\b(\d{6})\b/.exec(mail.data)?.[1];
    assert.equal(code, sandboxCode);
    assert.ok(
      carriedOut(await c.post('/dashboard/verify', { email: 'smtp-user@example.com', code: code ?? '' })),
    );
  });
});

describe('the embedded mailer', () => {
  it('stores the mail and logs recipient and subject, never the text with its code', async () => {
    const lines: object[] = [];
    const logger = { info: (o: object) => lines.push(o), warn: () => undefined, error: () => undefined };
    const mailbox = new MemoryMailbox();
    const mailer = memoryMailer(
      mailbox,
      { now: () => 5, at: () => () => undefined, every: () => () => undefined },
      logger,
    );
    await mailer.send({ to: 'a@example.com', subject: 'Your code', text: 'code 123456' });
    assert.deepEqual(await mailbox.listFor('a@example.com'), [
      { to: 'a@example.com', subject: 'Your code', text: 'code 123456', sentAt: 5 },
    ]);
    assert.equal(lines.length, 1);
    assert.ok(!JSON.stringify(lines).includes('123456'));
  });
});

describe('SMTP settings', () => {
  it('takes SMTP_URL and LOCKCLOUD_MAIL_FROM from the environment, the flags winning', () => {
    const config = loadConfig({ SMTP_URL: 'smtp://u:secret@mail.example:587' }, [
      '--mail-from',
      'a@b.example',
    ]);
    assert.equal(config.smtpUrl, 'smtp://u:secret@mail.example:587');
    assert.equal(config.mailFrom, 'a@b.example');
    assert.equal(describeConfig(config).smtpUrl, 'smtp://***@mail.example:587');
  });

  it('refuses a URL that is not smtp:// or smtps://, without echoing its password', () => {
    assert.throws(
      () => loadConfig({ SMTP_URL: 'http://u:secret@mail.example' }, []),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((p) => p.startsWith('smtpUrl:')) &&
        !error.message.includes('secret'),
    );
  });
});
