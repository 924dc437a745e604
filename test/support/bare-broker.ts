/** A bare aedes broker on a random loopback port, in the test's process: no lockcloud around it. */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';

export interface BareBroker {
  readonly broker: Aedes;
  readonly url: string;
  close(): Promise<void>;
}

export async function startBareBroker(): Promise<BareBroker> {
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    broker,
    url: `mqtt://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
