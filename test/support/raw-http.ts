/**
 * Raw HTTP/1.1 over a socket, for what fetch will not send: control characters and non-ASCII bytes
 * in headers, request lines and headers over Node's 16 KiB, invalid HTTP, a body on a GET, chunked
 * bodies, a Content-Length that lies.
 */
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** Sends `request` as it is and reads one response; the request should say `Connection: close`. */
export function rawRequest(baseUrl: string, request: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const timer = setTimeout(() => socket.destroy(new Error('no response within 5 s')), 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while we still write (a request it refused early): what it sent counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        reject(new Error(`no HTTP response: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`));
        return;
      }
      const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      let body = data.subarray(end + 4);
      const length = headers['content-length'];
      if (length !== undefined) body = body.subarray(0, Number(length));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: body.toString('utf8') });
    });
  });
}

/** A request with the given start line, headers and body (Content-Length added when a body is given). */
export function httpMessage(startLine: string, headers: Record<string, string> = {}, body?: string): string {
  const all: Record<string, string> = { host: 'localhost', connection: 'close', ...headers };
  if (body !== undefined && all['content-length'] === undefined && all['transfer-encoding'] === undefined) {
    all['content-length'] = String(Buffer.byteLength(body));
  }
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `${startLine}\r\n${head}\r\n${body ?? ''}`;
}
