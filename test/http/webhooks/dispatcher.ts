/**
 * A WebhookDispatcher over a given store, as the server builds one, but with the limits a test
 * names and the real HTTP transport allowed to reach loopback (the tests' receivers), a key of its
 * own for the secrets, and a manual clock: for the tests that drive the dispatcher directly.
 */
import { randomBytes } from 'node:crypto';
import { cryptoRandom } from '../../../src/adapters/system/crypto.ts';
import { addressPolicy } from '../../../src/adapters/webhooks/address-policy.ts';
import { httpTransport } from '../../../src/adapters/webhooks/http-transport.ts';
import { aesGcmBox } from '../../../src/adapters/webhooks/secret-box.ts';
import { standardWebhooksSigner } from '../../../src/adapters/webhooks/signer.ts';
import type { Store } from '../../../src/app/ports.ts';
import { WebhookDispatcher } from '../../../src/app/webhooks/dispatcher.ts';
import { DEFAULT_DISPATCH_LIMITS, type DispatchLimits } from '../../../src/app/webhooks/in-flight.ts';
import { silentLogger } from '../../support/devices.ts';
import { ManualClock } from '../../support/manual-clock.ts';

export function loopbackDispatcher(store: Store, limits: Partial<DispatchLimits> = {}): WebhookDispatcher {
  return new WebhookDispatcher({
    store,
    transport: httpTransport(addressPolicy({ allowLoopback: true, allow: [] })),
    random: cryptoRandom,
    logger: silentLogger as never,
    limits: { ...DEFAULT_DISPATCH_LIMITS, ...limits },
    webhooks: store.webhooks,
    box: aesGcmBox(randomBytes(32)),
    signer: standardWebhooksSigner,
    clock: new ManualClock(),
  });
}
