import nodemailer from 'nodemailer';
import type { Logger, Mailer, OutgoingMail } from '../../app/ports.ts';

export interface SmtpMailer extends Mailer {
  close(): void;
}

/**
 * Sends through an SMTP server (SMTP_URL: smtp://user:pass@host:587 or smtps://...). Logs the
 * recipient and subject of each mail, never its text. A failure is thrown to the use case, which
 * tells the person the mail could not be sent.
 */
export function smtpMailer(url: string, from: string, logger: Logger): SmtpMailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail: OutgoingMail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
        logger.info({ mailTo: mail.to, subject: mail.subject }, 'mail sent over SMTP');
      } catch (error) {
        logger.error({ mailTo: mail.to, err: error }, 'sending mail over SMTP failed');
        throw error;
      }
    },
    close: () => transport.close(),
  };
}

/** Both: SMTP sends, and in the sandbox the mailbox keeps a copy so tests can read the codes. */
export function bothMailers(first: Mailer, second: Mailer): Mailer {
  return {
    async send(mail) {
      await first.send(mail);
      await second.send(mail);
    },
  };
}
