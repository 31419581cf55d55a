// CPU time of processes from /proc (Linux), for the benchmarks' per-request CPU figures: unlike
// latency, it hardly depends on what else the machine runs.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const USER_HZ_MS = 10; // one clock tick of /proc/<pid>/stat's utime and stime


/** CPU milliseconds (user + system) of a process and, with `children`, of the processes whose parent it is. */
export function cpuMsOf(pid: number, children = false): number {
  let ticks = 0;
  const pids = children ? readdirSync('/proc').filter((name) => /^\d+$/.test(name)) : [String(pid)];
  for (const candidate of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${candidate}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command name in parentheses: state, ppid, ..., utime (14th field), stime, cutime, cstime (17th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(candidate) === pid) {
      ticks += Number(fields[11]) + Number(fields[12]);
      // cutime and cstime: children that exited meanwhile (e.g. autovacuum workers) stay counted.
      if (children) ticks += Number(fields[13]) + Number(fields[14]);
    } else if (children && fields[1] === String(pid)) {
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  }
  return ticks * USER_HZ_MS;
}

/** The embedded PostgreSQL's postmaster, or null with DATABASE_URL (then no database CPU figure). */
export function postmasterPid(): number | null {
  if (process.env.DATABASE_URL) return null;
  try {
    return Number(readFileSync(path.join(process.env.DATA_DIR!, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]!.trim());
  } catch {
    return null;
  }
}

/** CPU milliseconds used so far by the embedded PostgreSQL (postmaster and backends), or null with DATABASE_URL. */
export function databaseCpuMs(): number | null {
  const postmaster = postmasterPid();
  return postmaster === null ? null : cpuMsOf(postmaster, true);
}
