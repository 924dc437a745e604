import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutboundRequest, OutboundResult, WebhookTransport } from '../../app/ports.ts';
import { type AddressCheck, receiverHost } from './address-policy.ts';
import { networkError } from './network-errors.ts';

const USER_AGENT = 'lockcloud-webhooks/1';
// What is read of an answer: its status matters, its body is not kept.
const MAX_RESPONSE_BYTES = 64 * 1024;

function retryAfterMs(res: IncomingMessage, now: number): number | undefined {
  const header = res.headers['retry-after'];
  if (header === undefined) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Ends the request before it connects; `code` tells the error handler which outcome it is. */
const stop = (code: 'EDESTINATION' | 'EHOSTBUSY', message: string) =>
  Object.assign(new Error(message), { code });

/**
 * Webhook requests over node:http(s). The address is checked after resolution, at connect time,
 * and the connection goes to the one address that was checked (and admitted), so DNS cannot swap
 * in a forbidden one between check and use. Redirects are not followed: a 3xx is the receiver's
 * answer. A refused or unresolvable destination is one outcome, `refused`, whose detail is for the
 * operator's log only; network errors are told without the address connected to.
 */
export function httpTransport(allowed: AddressCheck): WebhookTransport {
  const guardedLookup =
    (admit: OutboundRequest['admit']): LookupFunction =>
    (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error)
          return callback(stop('EDESTINATION', `${hostname}: ${error.code ?? error.message}`), '', 0);
        const list = Array.isArray(addresses) ? addresses : [];
        const first = list[0];
        if (first === undefined) return callback(stop('EDESTINATION', `${hostname}: no address`), '', 0);
        for (const { address } of list) {
          const verdict = allowed(address);
          if (!verdict.allowed) return callback(stop('EDESTINATION', `${hostname}: ${verdict.why}`), '', 0);
        }
        if (admit && !admit(receiverHost(first.address)))
          return callback(stop('EHOSTBUSY', `${first.address} is busy`), '', 0);
        // Only the admitted address: the connection goes where the check and the count were made.
        if ((options as { all?: boolean }).all === true)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [first]);
        return callback(null, first.address, first.family);
      });
    };

  return {
    refusesLiteral(text: string): boolean {
      let host: string;
      try {
        host = new URL(text).hostname.replace(/^\[|\]$/g, '').toLowerCase();
      } catch {
        return false;
      }
      if (host === 'localhost' || host.endsWith('.localhost')) return !allowed('127.0.0.1').allowed;
      return isIP(host) !== 0 && !allowed(host).allowed;
    },
    send(request: OutboundRequest): Promise<OutboundResult> {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return Promise.resolve({ outcome: 'failed', error: 'not a URL', latencyMs: 0 });
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // A literal address skips DNS (and so the lookup hook): check and admit it here.
      if (isIP(host) !== 0) {
        const verdict = allowed(host);
        if (!verdict.allowed) return Promise.resolve({ outcome: 'refused', detail: verdict.why });
        if (request.admit && !request.admit(receiverHost(host))) return Promise.resolve({ outcome: 'busy' });
      }
      return new Promise((resolve) => {
        let settled = false;
        // Until the name has an address, a timeout means it could not be resolved in time.
        let resolved = isIP(host) !== 0;
        const finish = (result: OutboundResult): void => {
          if (settled) return;
          settled = true;
          resolve(result);
        };
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...request.headers };
        if (request.body !== null) {
          headers['content-type'] = 'application/json';
          headers['content-length'] = String(Buffer.byteLength(request.body));
        }
        // A late answer from DNS (after the timeout or a shutdown) must not take a slot nobody frees.
        const admit = request.admit && ((key: string) => !settled && (request.admit?.(key) ?? true));
        const lookup = guardedLookup(admit);
        const req = send(
          url,
          {
            method: request.method,
            headers,
            lookup: (hostname, options, callback) =>
              lookup(hostname, options, (error, ...rest) => {
                resolved = error === null;
                (callback as (...args: unknown[]) => void)(error, ...rest);
              }),
            timeout: request.timeoutMs,
            ...(request.signal === undefined ? {} : { signal: request.signal }),
          },
          (res) => {
            let read = 0;
            res.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (read > MAX_RESPONSE_BYTES) res.destroy();
            });
            const done = (): void =>
              finish({
                outcome: 'answered',
                status: res.statusCode ?? 0,
                retryAfterMs: retryAfterMs(res, Date.now()),
                latencyMs: latency(),
              });
            res.on('end', done);
            res.on('close', done);
            res.on('error', done);
          },
        );
        // The whole exchange, name resolution included, is bounded by the timeout.
        const timedOut = (): void => {
          req.destroy(
            resolved
              ? Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' })
              : stop('EDESTINATION', `${host}: not resolved within ${request.timeoutMs} ms`),
          );
        };
        const timer = setTimeout(timedOut, request.timeoutMs);
        timer.unref();
        req.on('timeout', timedOut);
        req.on('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          if (error.code === 'EDESTINATION') return finish({ outcome: 'refused', detail: error.message });
          if (error.code === 'EHOSTBUSY') return finish({ outcome: 'busy' });
          finish({ outcome: 'failed', error: networkError(error, request.timeoutMs), latencyMs: latency() });
        });
        req.on('close', () => clearTimeout(timer));
        req.end(request.body ?? undefined);
      });
    },
  };
}
