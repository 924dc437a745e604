/**
 * The webhook ports: signing a message and sending it out. Re-exported by app/ports.ts.
 */
import type { WebhookMethod } from '../../domain/webhook.ts';

export interface OutboundRequest {
  readonly url: string;
  readonly method: WebhookMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly timeoutMs: number;
  /** Aborting it cuts the request short (shutdown): it then ends as a failure at once. */
  readonly signal?: AbortSignal;
  /**
   * Asked once the destination's address is known and allowed, just before connecting, with the
   * receiver host it counts against (an IPv4 address or an IPv6 /64). False holds the request back:
   * nothing is sent and the answer is `busy`. True takes a place the caller frees when send ends.
   */
  readonly admit?: (receiverHost: string) => boolean;
}

export type OutboundResult =
  /** The receiver answered (any status). */
  | {
      readonly outcome: 'answered';
      readonly status: number;
      readonly retryAfterMs: number | undefined;
      readonly latencyMs: number;
    }
  /**
   * The policy refused the destination, or its name could not be resolved: nothing was sent. The
   * detail (which address, which DNS error) is for the operator's log, never for the account.
   */
  | { readonly outcome: 'refused'; readonly detail: string }
  /** `admit` said no: nothing was sent, nothing happened; the message may be tried later as it was. */
  | { readonly outcome: 'busy' }
  /** Sent or being sent, and no answer came: the error says what happened, never to which address. */
  | { readonly outcome: 'failed'; readonly error: string; readonly latencyMs: number };

/** Sends one webhook request; refuses forbidden addresses; never follows redirects; never throws. */
export interface WebhookTransport {
  send(request: OutboundRequest): Promise<OutboundResult>;
  /**
   * Whether the policy refuses a URL's host without resolving anything: a literal address (or
   * `localhost`) it would refuse at send. Asked when an endpoint is made or changed; a name is judged
   * only when a message is sent (its addresses may change). Absent: nothing is refused early.
   */
  refusesLiteral?(url: string): boolean;
}

/** Standard Webhooks signatures: `v1,<base64 HMAC-SHA256>` per secret, space-separated. */
export interface WebhookSigner {
  newSecret(): string;
  sign(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string;
}
