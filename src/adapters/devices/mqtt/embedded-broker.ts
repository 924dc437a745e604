import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import { sameSecret } from '../../../app/constant-time.ts';
import type {
  AccessPointStore,
  Clock,
  DeviceBrokerMetrics,
  Logger,
  SecretHasher,
} from '../../../app/ports.ts';
import { RetainedPolicy } from '../../../device-protocol/retention.ts';
import { apIdOfUsername, type Topics } from '../../../device-protocol/topics.ts';
import { brokerPersistence } from './broker-persistence.ts';
import { ConnectionGuard, type ConnectionLimits } from './connection-guard.ts';
import { MAX_CONNECT_BYTES, MAX_UNAUTHENTICATED_BYTES, maxPacketBytes } from './packet-limits.ts';

export interface EmbeddedBrokerOptions {
  readonly host: string;
  /** 0: any free port. Never 1883 by default: that is the machine's own Mosquitto. */
  readonly port: number;
  readonly topics: Topics;
  readonly accessPoints: AccessPointStore;
  readonly secrets: SecretHasher;
  /** The password of the server's own connection (user `cloud`), made fresh at every start. */
  readonly cloudSecret: string;
  readonly logger: Logger;
  /** Times the CONNECT deadline (CONNECT_TIMEOUT_MS): a test moves it rather than waiting. */
  readonly clock: Clock;
  /** Connections at once, in all and from one address (the settings of the same names). */
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly metrics?: DeviceBrokerMetrics;
}

/** A connection that has not completed an authenticated CONNECT by then is closed. */
export const CONNECT_TIMEOUT_MS = 5000;

export const CLOUD_USERNAME = 'cloud';

interface RetainedStore {
  createRetainedStream(pattern: string): AsyncIterable<{ topic: string; payload: Buffer }>;
}

type Role = { readonly kind: 'cloud' } | { readonly kind: 'ap'; readonly apId: string };

function refused(code: 4 | 5, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * The MQTT broker the server runs itself (aedes), for one-process installs. It checks every CONNECT
 * against the registered access points and every PUBLISH and SUBSCRIBE against the protocol's rules:
 * an access point reaches only its own topics. Sockets go without Nagle's algorithm, which would
 * otherwise add about 40 ms to each hop of a command (docs/benchmarks.md).
 */
export class EmbeddedBroker {
  private broker: Aedes | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly roles = new WeakMap<Client, Role>();
  private retention = new RetainedPolicy();
  private readonly guard: ConnectionGuard;
  private boundPort: number;

  constructor(private readonly options: EmbeddedBrokerOptions) {
    this.boundPort = options.port;
    this.guard = new ConnectionGuard(brokerLimits(options), options.clock, options.logger, options.metrics);
  }

  /** Connections open now (sockets the guard admitted and that have not closed). */
  get connections(): number {
    return this.guard.connections;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `mqtt://${host === '0.0.0.0' ? '127.0.0.1' : host}:${this.boundPort}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    // A new broker keeps no retained message: what the policy knew of the old one goes with it.
    this.retention = new RetainedPolicy();
    const broker = await Aedes.createBroker({
      persistence: brokerPersistence(this.options.topics.accessPointDepth),
      authenticate: (client, username, password, done) => {
        this.authenticate(client, username, password).then(
          (role) => {
            this.roles.set(client, role);
            this.guard.authenticated(client.conn as Socket);
            done(null, true);
          },
          (error: AuthenticateError) => done(error, false),
        );
      },
      authorizePublish: (client, packet, done) => {
        const role = client && this.roles.get(client);
        if (!client || role?.kind === 'cloud') return done(null);
        if (role?.kind === 'ap' && this.options.topics.apMayPublish(role.apId, packet.topic)) {
          if (packet.retain) this.judgeRetained(role.apId, packet);
          return done(null);
        }
        this.options.logger.warn({ clientId: client.id, topic: packet.topic }, 'device publish refused');
        done(new Error('not authorized'));
      },
      authorizeSubscribe: (client, subscription, done) => {
        const role = this.roles.get(client);
        if (role?.kind === 'cloud') return done(null, subscription);
        if (role?.kind === 'ap' && this.options.topics.apMaySubscribe(role.apId, subscription.topic)) {
          return done(null, subscription);
        }
        this.options.logger.warn(
          { clientId: client.id, topic: subscription.topic },
          'device subscription refused',
        );
        done(null, null);
      },
    });
    const server = createServer({ noDelay: true }, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      this.guard.accept(socket, (admitted) => broker.handle(admitted));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.boundPort, this.options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      // Its port taken: the broker made for it goes too (its timers would hold the process open).
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      throw error;
    }
    const address = server.address();
    if (typeof address === 'object' && address !== null) this.boundPort = address.port;
    this.broker = broker;
    this.server = server;
  }

  /** What the broker keeps retained now: each topic and its payload's size (for the operator; tests). */
  async retained(): Promise<{ readonly topic: string; readonly bytes: number }[]> {
    // aedes's in-memory persistence, which its types leave untyped.
    const persistence = (this.broker as { persistence?: RetainedStore } | undefined)?.persistence;
    const kept: { topic: string; bytes: number }[] = [];
    if (persistence)
      for await (const packet of persistence.createRetainedStream('#'))
        kept.push({ topic: packet.topic, bytes: packet.payload.byteLength });
    return kept;
  }

  /** Stops listening and drops every connection (retained messages are forgotten with it). */
  async stop(): Promise<void> {
    const { server, broker } = this;
    this.server = undefined;
    this.broker = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (broker) await new Promise<void>((resolve) => broker.close(() => resolve()));
  }

  /**
   * An access point may keep retained only what the protocol needs (device-protocol/retention.ts);
   * anything else is still delivered, but not kept: MQTT 3.1.1 has no way to refuse the retain flag
   * alone, and refusing the publish would drop the connection.
   */
  private judgeRetained(apId: string, packet: PublishPacket): void {
    const parsed = this.options.topics.parse(packet.topic);
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const verdict = parsed && this.retention.judge(apId, parsed, payload);
    if (!verdict?.keep) {
      packet.retain = false;
      this.options.logger.warn(
        { apId, topic: packet.topic, why: verdict ? verdict.why : 'not a topic of the protocol' },
        'retained device message not kept',
      );
      return;
    }
    for (const lock of verdict.forget) this.clearRetained(this.options.topics.lock(apId, lock, 'state'));
  }

  /** Forgets a retained message (an empty retained payload is MQTT's way to clear a topic). */
  private clearRetained(topic: string): void {
    const empty = {
      cmd: 'publish',
      topic,
      payload: Buffer.alloc(0),
      qos: 0,
      retain: true,
      dup: false,
    } as const;
    this.broker?.publish(empty, (error) => {
      if (error) this.options.logger.warn({ err: error, topic }, 'clearing a retained device message failed');
    });
  }

  private async authenticate(
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<Role> {
    const given = password?.toString('utf8') ?? '';
    if (username === CLOUD_USERNAME) {
      if (sameSecret(given, this.options.cloudSecret)) return { kind: 'cloud' };
      throw refused(4, 'bad username or password');
    }
    const apId = apIdOfUsername(username);
    // One session per access point: the client id is the user name, so a second connection replaces the first.
    if (apId === undefined || client.id !== username) throw refused(5, 'not authorized');
    const ap = await this.options.accessPoints.get(apId);
    if (!ap || !sameSecret(this.options.secrets.hash(given), ap.secretHash)) {
      this.options.logger.warn({ apId }, 'access point refused: unknown or wrong secret');
      throw refused(4, 'bad username or password');
    }
    return { kind: 'ap', apId };
  }
}

function brokerLimits(options: EmbeddedBrokerOptions): ConnectionLimits {
  return {
    maxConnections: options.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    maxConnectBytes: MAX_CONNECT_BYTES,
    maxUnauthenticatedBytes: MAX_UNAUTHENTICATED_BYTES,
    maxPacketBytes: maxPacketBytes(options.topics.prefix),
  };
}
