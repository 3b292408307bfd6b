/**
 * Ends the local stack when whoever started it is gone. `npm start` runs us as
 * npm → sh → node; a SIGKILL of npm reaches neither sh nor us, so we watch our ancestors up
 * to the npm process (or just our parent when started directly) and stop when one dies.
 */
import { readFileSync } from 'node:fs';

function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

export function ancestorsToWatch(maxDepth = 4): number[] {
  const chain: number[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < maxDepth && pid > 1; depth++) {
    chain.push(pid);
    if (/(^|\/)npm(-cli\.js)?( |$)|npm-cli\.js/.test(commandOf(pid))) return chain;
    const next = parentOf(pid);
    if (next === undefined) break;
    pid = next;
  }
  return chain.slice(0, 1); // not under npm: our parent alone
}

/** Whether process `pid` still runs (EPERM: it does, as another user's). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function onOrphaned(callback: () => void, intervalMs = 1000): void {
  const watched = ancestorsToWatch();
  const startParent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== startParent || watched.some((pid) => !alive(pid))) {
      clearInterval(timer);
      callback();
    }
  }, intervalMs);
  timer.unref();
}
