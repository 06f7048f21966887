// The embedded server's watchdog. The server is started with pg_ctl and outlives whoever started
// it; its owner (server.owner, see embeddedPostgres.ts) stops it when it leaves last. An owner
// that cannot run its exit code (kill -9, the kernel's out-of-memory killer, a native crash, any
// signal Node does not handle) leaves the server running with nobody to stop it until another
// process comes. The watchdog takes the owner's place then: once the owner is dead and nobody
// has been connected for GRACE_S seconds in a row, it stops the server (fast shutdown); while an
// owner lives, or anyone is connected, it leaves the server alone.
//
// A bash loop rather than a Node process: it measured 3.3 MB RSS (a bare Node script: 43 MB) and
// 2.3 ms of CPU a second, its `sleep` included; it needs nothing the machine lacks (bash, flock
// from util-linux, /proc).
// It counts sessions from the postmaster's children's process titles ("postgres: user db
// 127.0.0.1(port) state": every client connects over TCP to 127.0.0.1, there is no socket file),
// so it needs no password and is no session itself. It stops the server with SIGINT, PostgreSQL's
// fast shutdown (what `pg_ctl stop -m fast` sends), so it needs no binaries either, and as root
// (the server then runs as `postgres`) it may signal it.
//
// Exactly one per server: the watchdog holds an flock on `server.watchdog` in the data directory
// (released by the kernel however it ends) and writes its pid there; whoever opens the store
// starts one only when the pid there is not a live watchdog, and a second one started in a race
// waits a few seconds for the lock, then leaves. It watches the cluster directory, not one
// postmaster: a server the daemon starts again after it died (keepDatabaseAlive) is the same
// watchdog's. It leaves when there is no server and no live owner.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '../isAlive.ts';

/**
 * Seconds an orphaned server (owner dead) must have had nobody connected before the watchdog
 * stops it: a daemon restarted by its supervisor finds it still running, and a live daemon's
 * pool, which may close an idle connection, uses one every 5 s (keepDatabaseAlive).
 */
export const GRACE_S = 10;

/** Its argv[0], by which `watchServer` and the tests know it. */
export const WATCHDOG_NAME = 'flipbook-pg-watchdog';

/** $1 the cluster directory, $2 the owner file, $3 the lock file, $4 the grace in seconds. */
const SCRIPT = String.raw`
cluster=$1 owner_file=$2 lock=$3 grace=$4
exec 9>>"$lock" || exit 0
if command -v flock >/dev/null; then flock -w 5 9 || exit 0; fi
echo $$ >"$lock"
note() { printf '%s %s[%s]: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$0" $$ "$1" >>"$cluster/server.log"; }
# A live process, another user's too (kill -0 says EPERM there), and not a zombie: one that has
# ended and waits for its parent to collect it (a parent that never does keeps it for good).
alive() {
  [[ $1 =~ ^[1-9][0-9]*$ ]] || return 1
  local stat=''
  if { read -r stat <"/proc/$1/stat"; } 2>/dev/null; then
    [[ $stat != *') Z '* ]]
  else
    [ ! -e /proc/self ] && kill -0 "$1" 2>/dev/null  # no /proc (not Linux): kill -0 alone
  fi
}
# pm: the running postmaster's pid, or fail (no pid file, or a stale one, its pid dead or reused).
postmaster() {
  pm=''
  { read -r pm <"$cluster/postmaster.pid"; } 2>/dev/null
  alive "$pm" || return 1
  if [ -r "/proc/$pm/comm" ]; then
    local comm=''
    { read -r comm <"/proc/$pm/comm"; } 2>/dev/null
    [ "$comm" = postgres ]
  fi
}
# n: the server's client sessions, or fail when they cannot be counted (then it is never stopped).
sessions() {
  local kids='' kid title ppid
  n=0
  if [ -r "/proc/$pm/task/$pm/children" ]; then
    read -r kids <"/proc/$pm/task/$pm/children"
    for kid in $kids; do
      title=''
      { read -r -d '' title <"/proc/$kid/cmdline"; } 2>/dev/null
      if [[ $title == *'127.0.0.1('* ]]; then n=$((n + 1)); fi
    done
  elif command -v ps >/dev/null; then
    while read -r ppid title; do
      if [ "$ppid" = "$pm" ] && [[ $title == *'127.0.0.1('* ]]; then n=$((n + 1)); fi
    done < <(ps -A -o ppid= -o command=)
  else
    return 1
  fi
  return 0
}
empty=0 told=''
while sleep 1; do
  owner=''
  { read -r owner <"$owner_file"; } 2>/dev/null
  if ! postmaster; then
    alive "$owner" || exit 0  # no server and nobody who would start it again
    empty=0; continue
  fi
  if alive "$owner"; then empty=0 told=''; continue; fi
  if ! sessions; then empty=0; continue; fi
  if [ "$n" -gt 0 ]; then
    [ "$told" = "$owner" ] || note "the server's owner (pid $owner) has gone; $n session(s) still connected: the server stays up"
    told=$owner empty=0; continue
  fi
  empty=$((empty + 1))
  [ "$empty" -lt "$grace" ] && continue
  # Looked at once more, just before: a process that adopted the server a moment ago (it claims
  # the owner file, then checks the server still runs) keeps it.
  owner=''
  { read -r owner <"$owner_file"; } 2>/dev/null
  if alive "$owner"; then empty=0 told=''; continue; fi
  note "the server's owner (pid $owner) has gone and nobody has been connected for $grace s: stopping the server (fast shutdown)"
  kill -INT "$pm" 2>/dev/null
  for _ in $(seq 600); do alive "$pm" || exit 0; sleep 0.1; done
  exit 0
done
`;

/**
 * Starts the server's watchdog unless one runs. Called by every process that opens the embedded
 * store, so a server started before there was a watchdog (by an older release), or whose
 * watchdog was killed, gets one; it costs a file read when one runs.
 */
export const watchServer = async (dataDir: string, clusterDir: string) => {
  const lock = join(dataDir, 'server.watchdog');
  const pid = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
  if (await isWatchdog(pid)) return;
  const child = spawn(
    'bash',
    ['-c', SCRIPT, WATCHDOG_NAME, clusterDir, join(dataDir, 'server.owner'), lock, String(GRACE_S)],
    {
      // Its own session: a terminal's hangup or Ctrl-C, which reach the daemon's process group,
      // do not reach it. Nothing of ours in its environment (the daemon's may hold S3 secrets).
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    },
  );
  child.on('error', () => {}); // no bash: no watchdog; the server is stopped as before, by its owner
  child.unref();
};

const isWatchdog = async (pid: number) => {
  if (!isAlive(pid)) return false;
  // A pid reused by another process is not the watchdog (where /proc tells).
  const args = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return args === null || args.split('\0').includes(WATCHDOG_NAME);
};
