/**
 * A live event stream written as Server-Sent Events (docs/events.md, "The live stream"), for the
 * surfaces that serve one (/ext with a key, the dashboard with a session). The use case
 * (app/event-stream.ts) decides what each reader gets; this writes it, and closes a client that
 * leaves too much unread (`too_slow`) instead of holding its backlog in memory.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StreamRequest, StreamSink } from '../app/event-stream.ts';
import type { Lockcloud } from '../app/lockcloud.ts';
import type { LockEvent } from '../domain/event.ts';
import { eventJson } from '../domain/event.ts';

/** How long a closed stream's last frames may take to leave before the socket is cut. */
const CLOSE_GRACE_MS = 10_000;

// One frame per event, shared by every stream that shows the same (owner's or redacted) event.
const frames = new WeakMap<LockEvent, string>();
function frameOf(event: LockEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: lock_event\ndata: ${JSON.stringify(eventJson(event))}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

/** The resume point: the Last-Event-ID header, else the last_event_id parameter (the header wins). */
export function resumeIdOf(request: FastifyRequest, query: string | undefined): string | undefined {
  const header = request.headers['last-event-id'];
  return typeof header === 'string' ? header : query;
}

/**
 * Opens a stream for `readerId` and answers with it; the errors (filters, resume id, too many
 * streams) are thrown before anything is sent, for the surface's error pipeline.
 */
export async function answerWithStream(
  lockcloud: Lockcloud,
  readerId: string,
  filters: StreamRequest,
  reply: FastifyReply,
): Promise<void> {
  const { bufferBytes } = lockcloud.eventStreams;
  let res: ServerResponse | undefined;
  let done = false;
  let cut: NodeJS.Timeout | undefined;
  const finish = (frame: string) => {
    if (res === undefined || done) return;
    done = true;
    res.end(frame);
    const raw = res;
    // A client that reads nothing would hold the socket open forever.
    cut = setTimeout(() => raw.destroy(), CLOSE_GRACE_MS);
    cut.unref();
  };
  const write = (frame: string) => {
    if (res === undefined || done) return;
    res.write(frame);
    // Past the kernel's buffers, what the client leaves unread stays in this process: bounded.
    if (res.writableLength > bufferBytes) stream.close('too_slow');
  };
  const sink: StreamSink = {
    event: (event) => write(frameOf(event)),
    heartbeat: () => write(': heartbeat\n\n'),
    ready: () =>
      new Promise<void>((resolve) => {
        if (res === undefined || done || !res.writableNeedDrain) return resolve();
        const raw = res;
        const go = () => {
          raw.off('drain', go);
          raw.off('close', go);
          resolve();
        };
        raw.on('drain', go);
        raw.on('close', go);
      }),
    close: (reason, lastEventId) =>
      finish(`event: close\ndata: ${JSON.stringify({ reason, last_event_id: lastEventId })}\n\n`),
  };
  const stream = await lockcloud.eventStreams.openStream(readerId, filters, sink);
  reply.hijack();
  res = reply.raw;
  // What the hooks set (X-Request-Id, the RateLimit fields), then the stream's own.
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, SSE_HEADERS);
  if (reply.request.method === 'HEAD') {
    // HEAD: the stream's head alone (Fastify answers HEAD with the GET route).
    stream.end();
    res.end();
    return;
  }
  res.write('retry: 3000\n\n');
  res.on('close', () => {
    clearTimeout(cut);
    stream.end();
  });
  // The client may have gone while the stream was being opened: its 'close' came before the listener.
  if (res.socket === null || res.socket.destroyed) {
    stream.end();
    return;
  }
  stream.start().catch((error: unknown) => {
    // The log could not be read (the database away): the client resumes from its last id.
    reply.log.error({ err: error }, 'the live event stream could not read the log');
    stream.end();
    finish('');
  });
}
