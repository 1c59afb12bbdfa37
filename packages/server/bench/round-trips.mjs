/**
 * A loopback TCP proxy in front of PostgreSQL that counts the round trips its clients make:
 * each simple query ('Q') and each extended-protocol sequence (ended by Sync, 'S') is answered
 * by one ReadyForQuery ('Z'); requests sent while earlier ones of the connection are still
 * unanswered (a pipeline) share their round trip, so a round trip is counted only when a
 * connection with nothing outstanding sends one. Bench-only (`bench:server --postgres --round-trips`): it
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
    // Requests sent and not yet answered on this connection.
    let outstanding = 0;
    client.on(
      "data",
      messages(
        true,
        (type) => {
          if (type !== 0x51 /* Q */ && type !== 0x53 /* S */) return;
          if (outstanding === 0) roundTrips++;
          outstanding++;
        },
        (chunk) => upstream.write(chunk),
      ),
    );
    upstream.on(
      "data",
      messages(
        false,
        (type) => {
          if (type === 0x5a /* Z */) outstanding = Math.max(0, outstanding - 1);
        },
        (chunk) => client.write(chunk),
      ),
    );
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

/**
 * A 'data' listener that forwards each chunk and calls `onMessage` with the type byte of each
 * whole protocol message in the stream. `startup`: the stream begins with a startup message,
 * which has no type byte (the client's side).
 */
function messages(startup, onMessage, forward) {
  let buffer = Buffer.alloc(0);
  let started = !startup;
  return (chunk) => {
    forward(chunk);
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
      onMessage(type);
      at += length + 1;
    }
    buffer = buffer.subarray(at);
  };
}
