/**
 * The mail ports: sending the dashboard's mail, and the sandbox's mailbox that keeps it. Re-exported
 * by app/ports.ts.
 */

/** An outgoing e-mail; the mailer decides whether it is stored, logged or sent over SMTP. */
export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly sentAt: number;
}

export interface Mailbox {
  /** Mails sent to this address, newest first. */
  listFor(normalizedEmail: string): Promise<Mail[]>;
}
