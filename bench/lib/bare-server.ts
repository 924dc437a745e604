/**
 * The baseline of the read path: a bare node:http server, run like the server under test (a process
 * of its own, through tsx), answering each path of the JSON file in argv[2] with that JSON, serialized
 * per request as a real handler would. Prints "listening on URL".
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const bodies = new Map<string, unknown>(
  Object.entries(JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Record<string, unknown>),
);

const server = createServer((req, res) => {
  const body = bodies.get(req.url ?? '');
  if (body === undefined) {
    res.writeHead(404).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
