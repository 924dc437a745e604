import type { Mail, Mailbox } from '../../app/ports.ts';

/** Mails kept in memory for the sandbox to show; the mailer that fills it arrives with the dashboard. */
export class MemoryMailbox implements Mailbox {
  private readonly mails: Mail[] = [];

  deliver(mail: Mail): void {
    this.mails.push(mail);
  }

  async listFor(email: string): Promise<Mail[]> {
    return this.mails.filter((m) => m.to === email).sort((a, b) => b.sentAt - a.sentAt);
  }

  clear(): void {
    this.mails.length = 0;
  }
}
