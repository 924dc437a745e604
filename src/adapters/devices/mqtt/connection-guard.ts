/**
 * What the embedded broker lets a TCP connection cost before it has proved who it is
 * (docs/security.md, "A stranger on the device port"): how many connections one address and all
 * together may hold, how long one may take to complete its CONNECT, and how large a packet may be,
 * read from each packet's first bytes so nothing over the limit is ever buffered. The broker shares
 * the process with the HTTP API: its memory is the API's.
 */
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type {
  Cancel,
  Clock,
  DeviceBrokerMetrics,
  Logger,
  DeviceConnectionRefusal as RefusalReason,
} from '../../../app/ports.ts';
import { FrameMeter, type FrameProblem } from './frame-meter.ts';

export interface ConnectionLimits {
  /** Connections open at once, from everywhere. */
  readonly maxConnections: number;
  /** Connections open at once from one address (IPv6: one /64, what one subscriber gets). */
  readonly maxConnectionsPerAddress: number;
  /** How long a connection has to complete its CONNECT and be authenticated. */
  readonly connectTimeoutMs: number;
  /** Before authentication, any packet (the CONNECT with its credentials and will) at most this. */
  readonly maxConnectBytes: number;
  /** Before authentication, everything the client sends at most this (the CONNECT and what follows it). */
  readonly maxUnauthenticatedBytes: number;
  /** After authentication, any packet at most this (a payload of the protocol's limit, its topic and header). */
  readonly maxPacketBytes: number;
}

interface Watch {
  readonly address: string;
  readonly meter: FrameMeter;
  authenticated: boolean;
  received: number;
  cancelDeadline: Cancel;
  closed: boolean;
}

/** The key connections are counted under: the address, IPv4-mapped IPv6 as IPv4, IPv6 by its /64. */
export function addressKey(remote: string | undefined): string {
  if (remote === undefined) return 'unknown';
  try {
    const address = ipaddr.process(remote);
    if (address.kind() === 'ipv4') return address.toString();
    return `${(address as ipaddr.IPv6).parts
      .slice(0, 4)
      .map((part) => part.toString(16))
      .join(':')}::/64`;
  } catch {
    return remote;
  }
}

export class ConnectionGuard {
  private readonly perAddress = new Map<string, number>();
  private readonly watches = new WeakMap<Socket, Watch>();
  private open = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics?: DeviceBrokerMetrics,
  ) {}

  get connections(): number {
    return this.open;
  }

  /**
   * A new connection: refused at once over a limit, else counted and handed to `handle` (aedes),
   * then metered. The order matters: with aedes's 'readable' listener on the socket first, the
   * 'data' listener added here sees each chunk when aedes reads it, before its parser does, and
   * does not switch the socket to flowing mode.
   */
  accept(socket: Socket, handle: (socket: Socket) => void): void {
    const address = addressKey(socket.remoteAddress);
    const fromAddress = this.perAddress.get(address) ?? 0;
    const refusal: RefusalReason | undefined =
      this.open >= this.limits.maxConnections
        ? 'total_limit'
        : fromAddress >= this.limits.maxConnectionsPerAddress
          ? 'address_limit'
          : undefined;
    if (refusal !== undefined) {
      this.refuse(socket, address, refusal);
      return;
    }
    this.open++;
    this.perAddress.set(address, fromAddress + 1);
    this.metrics?.deviceConnectionsOpen(this.open);
    const watch: Watch = {
      address,
      meter: new FrameMeter(),
      authenticated: false,
      received: 0,
      cancelDeadline: () => undefined,
      closed: false,
    };
    this.watches.set(socket, watch);
    socket.once('close', () => this.forget(watch));
    watch.cancelDeadline = this.clock.at(this.clock.now() + this.limits.connectTimeoutMs, () => {
      if (!watch.authenticated)
        this.close(socket, watch, 'connect_timeout', 'no authenticated CONNECT in time');
    });
    handle(socket);
    socket.on('data', (chunk: Buffer) => this.meter(socket, watch, chunk));
  }

  /** The connection's CONNECT was accepted: its packets may be as large as the protocol allows. */
  authenticated(socket: Socket): void {
    const watch = this.watches.get(socket);
    if (!watch) return;
    watch.authenticated = true;
    watch.cancelDeadline();
  }

  private meter(socket: Socket, watch: Watch, chunk: Buffer): void {
    if (watch.closed) return;
    const { limits } = this;
    if (!watch.authenticated) watch.received += chunk.length;
    const problem: FrameProblem | undefined =
      watch.received > limits.maxUnauthenticatedBytes
        ? { kind: 'too_large', detail: `over ${limits.maxUnauthenticatedBytes} bytes before authentication` }
        : watch.meter.feed(
            chunk,
            watch.authenticated
              ? { maxPacketBytes: limits.maxPacketBytes, connectFirst: false }
              : { maxPacketBytes: limits.maxConnectBytes, connectFirst: true },
          );
    if (problem !== undefined) this.close(socket, watch, problem.kind, problem.detail);
  }

  private close(socket: Socket, watch: Watch, reason: RefusalReason, detail: string): void {
    if (watch.closed) return;
    watch.closed = true;
    this.metrics?.deviceConnectionRefused(reason);
    this.logger.warn(
      { address: socket.remoteAddress, authenticated: watch.authenticated, reason, detail },
      'device connection closed',
    );
    socket.destroy();
  }

  private refuse(socket: Socket, address: string, reason: RefusalReason): void {
    this.metrics?.deviceConnectionRefused(reason);
    this.logger.warn({ address, reason }, 'device connection refused');
    socket.destroy();
  }

  private forget(watch: Watch): void {
    watch.closed = true;
    watch.cancelDeadline();
    this.open--;
    const left = (this.perAddress.get(watch.address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(watch.address, left);
    else this.perAddress.delete(watch.address);
    this.metrics?.deviceConnectionsOpen(this.open);
  }
}
