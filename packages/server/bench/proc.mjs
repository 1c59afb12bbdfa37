/**
 * What /proc says of this machine: a process's CPU time and context switches (all its threads),
 * PostgreSQL's (its postmaster and every child), and the machine's idle share. Linux only.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/`pid`/stat after the command's name (index 0 is the state), or undefined once it has exited. */
function statOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  } catch {
    return undefined;
  }
}

/**
 * User and system CPU time of process `pid` so far (all threads), in ms (clock ticks of 10 ms),
 * and `helpers`: the part of it spent by threads other than the main one (V8's optimising
 * compiler and GC helpers, libuv's pool; on SQLite also the WAL checkpointer's worker). On
 * PostgreSQL it is mostly JIT warm-up: ~1-1.5 ms per answer in the thousand answers after the
 * bench's warm-up, ~0.1 ms after a few thousand more.
 */
export function cpuOf(pid) {
  const fields = statOf(pid);
  let helpers = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (Number(tid) === pid) continue;
    try {
      const task = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
      helpers += (Number(task[11]) + Number(task[12])) * 10;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10, helpers };
}

/** Voluntary and involuntary context switches of every thread of `pid` so far (0 once it has exited). */
export function switchesOf(pid) {
  const total = { voluntary: 0, involuntary: 0 };
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return total;
  }
  for (const tid of tids) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      total.voluntary += Number(status.match(/^voluntary_ctxt_switches:\s+(\d+)/m)?.[1] ?? 0);
      total.involuntary += Number(status.match(/^nonvoluntary_ctxt_switches:\s+(\d+)/m)?.[1] ?? 0);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return total;
}

/** The same, summed over PostgreSQL's live processes (the postmaster's children: backends, WAL writer, ...). */
export function postgresSwitches(postmaster) {
  const total = { voluntary: 0, involuntary: 0 };
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(statOf(entry)?.[1]) !== postmaster) continue;
    const { voluntary, involuntary } = switchesOf(entry);
    total.voluntary += voluntary;
    total.involuntary += involuntary;
  }
  return total;
}

/**
 * CPU time (ms) PostgreSQL has used so far: the postmaster's, its exited children's (which it
 * has waited for) and that of every live child (backends, WAL writer, checkpointer, ...).
 */
export function postgresCpuMs(postmaster) {
  const own = statOf(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statOf(entry);
    if (fields && Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** The machine's idle and total CPU time so far (/proc/stat, clock ticks, all cores). */
export function machineTicks() {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: cpu[3] + cpu[4], total: cpu.reduce((a, b) => a + b, 0) };
}

/**
 * The CPU time (ms) so far of the PostgreSQL at `url` (which must run on this machine), as a
 * function; undefined when its postmaster cannot be found.
 */
export async function postgresCpuOf(url) {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const postmaster = await postmasterOf(pool);
    return postmaster === undefined ? undefined : () => postgresCpuMs(postmaster);
  } finally {
    await pool.end();
  }
}

/** The machine's share of idle CPU between two `machineTicks()`. */
export function idleShare(before, after) {
  return (after.idle - before.idle) / (after.total - before.total);
}

/** The postmaster's pid: the parent of a backend of the pool's server (which must run on this machine). */
export async function postmasterOf(pool) {
  const { rows } = await pool.query("SELECT pg_backend_pid() AS pid");
  const fields = statOf(rows[0].pid);
  return fields ? Number(fields[1]) : undefined;
}
