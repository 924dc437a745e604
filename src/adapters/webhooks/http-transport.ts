import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutboundRequest, OutboundResult, WebhookTransport } from '../../app/ports.ts';
import type { AddressCheck } from './address-policy.ts';

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

/**
 * Webhook requests over node:http(s). The address is checked after resolution, at connect time,
 * and the connection goes to the address that was checked, so DNS cannot swap in a forbidden one
 * between check and use. Redirects are not followed: a 3xx is the receiver's answer.
 */
export function httpTransport(allowed: AddressCheck): WebhookTransport {
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const list = Array.isArray(addresses) ? addresses : [];
      const bad = list.find((a) => !allowed(a.address));
      if (bad || list.length === 0) {
        const refusal = Object.assign(new Error(`address ${bad?.address ?? 'none'} is not allowed`), {
          code: 'EFORBIDDEN',
        });
        return callback(refusal, '', 0);
      }
      const all = (options as { all?: boolean }).all === true;
      if (all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };

  return {
    send(request: OutboundRequest): Promise<OutboundResult> {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return Promise.resolve({ ok: false, error: 'not a URL', latencyMs: 0 });
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // A literal address skips DNS (and so the lookup hook): check it here.
      if (isIP(host) !== 0 && !allowed(host)) {
        return Promise.resolve({ ok: false, error: `address ${host} is not allowed`, latencyMs: 0 });
      }
      return new Promise((resolve) => {
        let settled = false;
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
        const req = send(
          url,
          {
            method: request.method,
            headers,
            lookup: guardedLookup,
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
                ok: true,
                status: res.statusCode ?? 0,
                retryAfterMs: retryAfterMs(res, Date.now()),
                latencyMs: latency(),
              });
            res.on('end', done);
            res.on('close', done);
            res.on('error', done);
          },
        );
        // The whole exchange, not only idle time, is bounded by the timeout.
        const timer = setTimeout(() => {
          req.destroy(
            Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' }),
          );
        }, request.timeoutMs);
        timer.unref();
        req.on('timeout', () =>
          req.destroy(
            Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' }),
          ),
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          finish({ ok: false, error: error.message, latencyMs: latency() });
        });
        req.on('close', () => clearTimeout(timer));
        req.end(request.body ?? undefined);
      });
    },
  };
}
