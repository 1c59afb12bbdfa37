/** How many connections a process opens to PostgreSQL, and the options only PostgreSQL has. */
import { openBackend } from "@interlude/server";
import { describe, expect, it } from "vitest";
import { parseConnections, shareConnections } from "../dist/config/postgres-connections.js";

describe("a process's PostgreSQL connections", () => {
  it("are shared as LISTEN 1, pg-boss 4, and the rest split between the store and the saver", () => {
    expect(shareConnections()).toEqual({ store: 10, saver: 10, queue: 4 });
    expect(shareConnections(7)).toEqual({ store: 1, saver: 1, queue: 4 });
    expect(shareConnections(12)).toEqual({ store: 4, saver: 3, queue: 4 });
  });

  it("are a whole number of at least 7, named as given when not", () => {
    expect(parseConnections(undefined, "--postgres-connections")).toBeUndefined();
    expect(parseConnections("", "INTERLUDE_POSTGRES_CONNECTIONS")).toBeUndefined();
    expect(parseConnections("40", "--postgres-connections")).toBe(40);
    expect(() => parseConnections("6", "--postgres-connections")).toThrow(/^--postgres-connections 6 is not/);
    expect(() => parseConnections("7.5", "INTERLUDE_POSTGRES_CONNECTIONS")).toThrow(
      /^INTERLUDE_POSTGRES_CONNECTIONS=7\.5 is not a whole number of at least 7/,
    );
  });

  it("are refused, with concurrency, by a backend on SQLite instead of ignored", async () => {
    for (const option of [{ concurrency: 2 }, { postgresConnections: 10 }])
      await expect(openBackend({ sqlitePath: ":memory:", ...option })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringMatching(/applies to PostgreSQL storage only/),
      });
  });
});
