/**
 * A simulated access point's MQTT connection: connecting with its last will, and after a lost or
 * refused connection trying again after a growing wait, as a real access point's firmware does.
 * What travels over it (announcements, states, commands) is access-point.ts's.
 */
import type { Socket } from 'node:net';
import { connect, type MqttClient } from 'mqtt';
import type { Logger } from '../app/ports.ts';
import { apUsername } from '../device-protocol/topics.ts';
import { linkReason, reconnectDelayMs } from './link-trouble.ts';

/** A message for the broker to keep (qos 1, retained): the last will and the last words. */
export interface RetainedMessage {
  readonly topic: string;
  readonly payload: string;
}

export interface ApLinkOptions {
  /** The broker, e.g. mqtt://127.0.0.1:1884. */
  readonly url: string;
  /** Put before the client id (AccessPointOptions.clientIdPrefix). */
  readonly clientIdPrefix?: string;
  /** Seconds between keep-alives: the broker notices a vanished access point within 1.5 times this. */
  readonly keepaliveSeconds?: number;
  readonly logger: Logger;
  /** Told of failures with the wait before the next attempt, and of each success (AccessPointOptions.link). */
  readonly link?: {
    failed(apId: string, reason: string, retryInMs: number): void;
    connected(apId: string): void;
  };
  /** Published by the broker when the connection drops without a word. */
  readonly will: RetainedMessage;
  /** Each time the connection is up (a clean session: subscribe and announce again). */
  onConnect(client: MqttClient): void;
  onMessage(topic: string, payload: Buffer): void;
}

export class ApLink {
  private client: MqttClient | undefined;
  /** The next connection attempt after a failure (a real-time wait: the broker's, not the sandbox's). */
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly apId: string,
    private readonly secret: string,
    private readonly options: ApLinkOptions,
  ) {}

  /** The live connection, if there is one to publish on. */
  get up(): MqttClient | undefined {
    return this.client?.connected === true ? this.client : undefined;
  }

  /**
   * Connects, and after a lost or refused connection tries again after a growing wait (1 s,
   * doubling up to 30 s, reset by a success); resolves at the first successful connection, rejects
   * if the broker refuses the credentials at the first attempt.
   */
  start(): Promise<void> {
    const { keepaliveSeconds = 5, logger, will } = this.options;
    const client = connect(this.options.url, {
      clientId: `${this.options.clientIdPrefix ?? ''}${apUsername(this.apId)}`,
      username: apUsername(this.apId),
      password: this.secret,
      clean: true,
      keepalive: keepaliveSeconds,
      // Reconnections are ours (below): mqtt.js would try every period, for ever, at the same pace.
      reconnectPeriod: 0,
      connectTimeout: 5000,
      will: { topic: will.topic, payload: Buffer.from(will.payload), qos: 1, retain: true },
    });
    this.client = client;
    let failures = 0;
    let lastError: Error | undefined;
    client.on('connect', () => {
      failures = 0;
      lastError = undefined;
      this.options.link?.connected(this.apId);
      (client.stream as Socket).setNoDelay?.(true);
      this.options.onConnect(client);
    });
    client.on('message', (topic, payload) => this.options.onMessage(topic, payload));
    client.on('error', (error) => {
      lastError = error;
      // A failed attempt is told once it has closed, with the wait; an error on a live link now.
      if (client.connected)
        logger.warn({ apId: this.apId, reason: linkReason(error) }, 'access point link error');
    });
    client.on('close', () => {
      // Stopped or lost power: nothing to reconnect.
      if (this.client !== client) return;
      failures++;
      const waitMs = reconnectDelayMs(failures);
      const reason = linkReason(lastError);
      lastError = undefined;
      if (this.options.link) this.options.link.failed(this.apId, reason, waitMs);
      else
        logger.warn({ apId: this.apId, reason, retryInMs: waitMs }, 'access point cannot reach the broker');
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        if (this.client === client) client.reconnect();
      }, waitMs);
    });
    return new Promise((resolve, reject) => {
      const onConnect = (): void => {
        client.off('error', onError);
        resolve();
      };
      const onError = (error: Error): void => {
        // Refused credentials do not get better by retrying.
        if (/Not authorized|Bad username/i.test(error.message)) {
          client.off('connect', onConnect);
          client.off('error', onError);
          this.client = undefined;
          clearTimeout(this.reconnectTimer);
          client.end(true);
          reject(error);
        }
      };
      client.once('connect', onConnect);
      client.on('error', onError);
    });
  }

  /** Switched off properly: publishes `lastWords` if connected, then disconnects (no last will). */
  async stop(lastWords: RetainedMessage, published: () => void): Promise<void> {
    const client = this.detach();
    if (!client) return;
    if (!client.connected) {
      await client.endAsync(true);
      return;
    }
    published();
    // Detached, a connection that drops now is not made again, and mqtt.js keeps a QoS 1 message
    // for the next connection: its acknowledgement would never come. So each wait below also ends
    // when the connection drops: the last words' acknowledgement, and the graceful end (which
    // waits for every message in flight to be acknowledged before it says goodbye).
    const dropped = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await Promise.race([
      client.publishAsync(lastWords.topic, lastWords.payload, { qos: 1, retain: true }).catch(() => {}),
      dropped,
    ]);
    if (!client.connected) await client.endAsync(true);
    else await Promise.race([client.endAsync(false), dropped]);
  }

  /** Loses power: the connection drops without a word, so the broker publishes the last will. */
  kill(): void {
    const client = this.detach();
    if (!client) return;
    client.stream.destroy();
    client.end(true);
  }

  /** Ends reconnecting: a connection no longer ours is not tried again when it closes. */
  private detach(): MqttClient | undefined {
    const client = this.client;
    this.client = undefined;
    clearTimeout(this.reconnectTimer);
    return client;
  }
}
