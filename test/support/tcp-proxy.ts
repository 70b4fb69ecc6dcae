/**
 * A TCP proxy of the tests' own (node:net) between a desktop and the team server, to make the
 * network misbehave: refuse and drop every connection (offline), cut connections after a number of
 * bytes (mid-push, mid-pull), delay each chunk, and hold new connections for a random time so
 * requests on different connections arrive out of order.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface Faults {
  /** Refuse new connections and drop open ones. */
  offline: boolean;
  /** Probability that a chunk (either way) is cut short at a random byte and its connection dropped. */
  cutProbability: number;
  /** Delay added to every chunk, ms. */
  chunkDelayMs: number;
  /** New connections wait a random 0..holdMs before reaching the server (reordering). */
  holdMs: number;
}

export const HEALTHY: Faults = { offline: false, cutProbability: 0, chunkDelayMs: 0, holdMs: 0 };

export interface TcpProxy {
  url: string;
  faults: Faults;
  set(faults: Partial<Faults>): void;
  retarget(port: number): void;
  /** Connections cut on purpose so far. */
  cuts(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, random: () => number = Math.random): Promise<TcpProxy> {
  let target = targetPort;
  let cutCount = 0;
  const faults: Faults = { ...HEALTHY };
  const open = new Set<Socket>();

  function pipe(from: Socket, to: Socket) {
    from.on('data', (chunk: Buffer) => {
      const send = () => {
        if (to.destroyed) return;
        if (faults.cutProbability > 0 && random() < faults.cutProbability) {
          to.write(chunk.subarray(0, Math.floor(random() * chunk.length)));
          cutCount += 1;
          from.destroy();
          to.destroy();
          return;
        }
        to.write(chunk);
      };
      if (faults.chunkDelayMs > 0) {
        from.pause();
        setTimeout(() => {
          send();
          from.resume();
        }, faults.chunkDelayMs);
      } else send();
    });
    from.on('end', () => to.end());
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  }

  const server: Server = createServer((client) => {
    if (faults.offline) {
      client.destroy();
      return;
    }
    open.add(client);
    client.on('close', () => open.delete(client));
    client.pause();
    const start = () => {
      if (client.destroyed) return;
      const upstream = connect(target, '127.0.0.1');
      open.add(upstream);
      upstream.on('close', () => open.delete(upstream));
      upstream.on('connect', () => client.resume());
      pipe(client, upstream);
      pipe(upstream, client);
    };
    const hold = faults.holdMs > 0 ? Math.floor(random() * faults.holdMs) : 0;
    if (hold) setTimeout(start, hold);
    else start();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    set(next) {
      Object.assign(faults, next);
      if (faults.offline) for (const s of open) s.destroy();
    },
    retarget(port) {
      target = port;
    },
    cuts: () => cutCount,
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
