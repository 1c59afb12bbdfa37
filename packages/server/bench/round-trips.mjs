/**
 * A loopback TCP proxy in front of PostgreSQL that counts the round trips its clients make:
 * each simple query ('Q') and each extended-protocol sequence (ended by Sync, 'S') waits for
 * the server's ReadyForQuery once. Bench-only (`bench:server --postgres --round-trips`): it
 * costs the bench process a little CPU per message, so throughput is measured without it.
 */
import net from "node:net";

/** @returns {Promise<{ url: string, count(): number, close(): Promise<void> }>} */
export async function countRoundTrips(databaseUrl) {
  const target = new URL(databaseUrl);
  let roundTrips = 0;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let buffer = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    client.on("data", (chunk) => {
      upstream.write(chunk);
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      let at = 0;
      for (;;) {
        if (!started) {
          if (buffer.length - at < 4) break;
          const length = buffer.readInt32BE(at);
          if (buffer.length - at < length) break;
          at += length;
          started = true;
          continue;
        }
        if (buffer.length - at < 5) break;
        const type = buffer[at];
        const length = buffer.readInt32BE(at + 1);
        if (buffer.length - at < length + 1) break;
        if (type === 0x51 /* Q */ || type === 0x53 /* S */) roundTrips++;
        at += length + 1;
      }
      buffer = buffer.subarray(at);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    count: () => roundTrips,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
