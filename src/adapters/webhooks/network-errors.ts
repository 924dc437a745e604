/**
 * What the delivery log says of a failed exchange with an allowed receiver. Node's messages name
 * the address connected to ("connect ECONNREFUSED 10.20.0.5:80"), which would tell the account
 * how a name resolves inside a range the operator opened (--webhook-allow); the log says what
 * happened, never where.
 */
const BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNABORTED: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host unreachable',
  EADDRNOTAVAIL: 'host unreachable',
  ABORT_ERR: 'interrupted',
};

export function networkError(error: NodeJS.ErrnoException, timeoutMs: number): string {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code === 'ETIMEDOUT') return `no answer within ${timeoutMs} ms`;
  const known = BY_CODE[code];
  if (known !== undefined) return known;
  // node's HTTP parser (HPE_*): the receiver answered something that is not HTTP/1.1.
  if (code.startsWith('HPE_')) return 'not a valid HTTP answer';
  // TLS codes name the certificate problem, never the peer (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID).
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) return `TLS: ${code}`;
  if (/^[A-Z][A-Z0-9_]*$/.test(code)) return `connection failed (${code})`;
  return 'connection failed';
}
