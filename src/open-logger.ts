/**
 * Part of the composition root: the server's logger. JSON lines (pino) without the credential
 * headers, and, when a setting holds a secret (a database, Redis, SMTP or broker password, the
 * server key), every line scrubbed of it: a driver's error that echoes its URL or password must not
 * put it in the log.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { type Config, configScrubber } from './config/config.ts';

export function openLogger(config: Config, destination?: DestinationStream): Logger {
  const scrub = configScrubber(config);
  const options = {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-authorization"]'], remove: true },
    // On the finished line, so no serializer or nested error object can slip past it; only when
    // there is something to scrub, so a server without secret settings pays nothing per line.
    ...(scrub === undefined ? {} : { hooks: { streamWrite: scrub } }),
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
