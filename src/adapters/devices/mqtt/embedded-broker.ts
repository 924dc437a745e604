import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import { sameSecret } from '../../../app/constant-time.ts';
import type { AccessPointStore, Logger, SecretHasher } from '../../../app/ports.ts';
import { apIdOfUsername, type Topics } from './topics.ts';

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
}

export const CLOUD_USERNAME = 'cloud';

type Role = { readonly kind: 'cloud' } | { readonly kind: 'ap'; readonly apId: string };

function refused(code: 4 | 5, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * The MQTT broker the server runs itself (aedes), for one-process installs. It checks every CONNECT
 * against the registered access points and every PUBLISH and SUBSCRIBE against the protocol's rules:
 * an access point reaches only its own topics. Sockets go without Nagle's algorithm, which would
 * otherwise add about 40 ms to each hop of a command (STACK.md).
 */
export class EmbeddedBroker {
  private broker: Aedes | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly roles = new WeakMap<Client, Role>();
  private boundPort: number;

  constructor(private readonly options: EmbeddedBrokerOptions) {
    this.boundPort = options.port;
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
    const broker = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        this.authenticate(client, username, password).then(
          (role) => {
            this.roles.set(client, role);
            done(null, true);
          },
          (error: AuthenticateError) => done(error, false),
        );
      },
      authorizePublish: (client, packet, done) => {
        const role = client && this.roles.get(client);
        if (!client || role?.kind === 'cloud') return done(null);
        if (role?.kind === 'ap' && this.options.topics.apMayPublish(role.apId, packet.topic))
          return done(null);
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
      broker.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.boundPort, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (typeof address === 'object' && address !== null) this.boundPort = address.port;
    this.broker = broker;
    this.server = server;
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
