import type { Clock, Logger, Mailer, OutgoingMail } from '../../app/ports.ts';
import type { MemoryMailbox } from '../system/mailbox.ts';

/**
 * The embedded mailer: the mail is kept in the in-memory mailbox (the sandbox shows it at
 * /_sim/mailbox) and its sending is logged: recipient and subject, never the text, which carries a code.
 */
export function memoryMailer(mailbox: MemoryMailbox, clock: Clock, logger: Logger): Mailer {
  return {
    async send(mail: OutgoingMail) {
      mailbox.deliver({ ...mail, sentAt: clock.now() });
      logger.info({ mailTo: mail.to, subject: mail.subject }, 'mail stored (no SMTP_URL configured)');
    },
  };
}
