#!/bin/sh
# tests/slurm-array.sh - a Slurm job array processes a batch with
# `fieldgraph run --skip-existing`, each input exactly once.  It starts a
# one-node Slurm of its own on localhost from Debian's packages (munge,
# slurm-wlm): munged, slurmctld and slurmd with every file in a temporary
# directory (no systemd, no cgroups: proctrack/linuxproc, task/none), the
# node named after `hostname -s` with the CPUs and memory `slurmd -C`
# reports; submits `sbatch --array=0-2 --wait --wrap 'fieldgraph run ...'`
# (each task's shard comes from SLURM_ARRAY_TASK_*) over data/samples,
# checks the tasks' JSON lines and outputs against the batch, and stops
# the daemons.  Needs root (the daemons run as root, SlurmUser=root):
# scripts/test runs it after the suites; skipped (77) with the reason when
# Slurm or munge is not installed, when not root, or when a daemon cannot
# start.  Run from the top build directory:
#   sudo tests/slurm-array.sh          (srcdir=DIR for a VPATH build)
set -u
src=$(cd "${srcdir:-.}" && pwd)
tool=$(pwd)/tools/fieldgraph
skip() { echo "slurm-array: SKIP: $*"; exit 77; }
fail() {
  echo "slurm-array: FAIL: $*"
  for f in "$tmp"/*.log "$tmp"/task-*; do
    [ -f "$f" ] && { echo "== $f"; tail -n 20 "$f"; }
  done
  exit 1
}
for cmd in munged munge slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$cmd" >/dev/null 2>&1 ||
    PATH=$PATH:/usr/sbin:/sbin command -v "$cmd" >/dev/null 2>&1 ||
    skip "$cmd not installed (apt-get install slurm-wlm munge)"
done
PATH=$PATH:/usr/sbin:/sbin
[ "$(id -u)" -eq 0 ] || skip "needs root to start slurmd (SlurmUser=root)"
[ -x "$tool" ] || fail "no $tool: build first"

tmp=$(mktemp -d /tmp/fg-slurm.XXXXXX) || exit 1
chmod 755 "$tmp"            # munged wants a socket path others can reach
pids=""
stop() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  for p in $pids; do   # up to 5 s each, then for good
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
      sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM
start=$(date +%s)

# ---- munge: a fresh key, its socket in $tmp ----
mkdir -m 755 "$tmp/munge"
head -c 1024 /dev/urandom > "$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket.2
munged --foreground --force --socket="$sock" \
  --key-file="$tmp/munge/munge.key" --log-file="$tmp/munged.log" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
  > "$tmp/munged.out.log" 2>&1 &
pids="$pids $!"
i=0
until munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 50 ] ||
    skip "munged did not start: $(tail -n 3 "$tmp/munged.out.log")"
  sleep 0.1
done

# ---- slurm.conf: one node, this machine ----
host=$(hostname -s)
node=$(slurmd -C | sed -n 's/^\(NodeName=.*RealMemory=[0-9]*\).*/\1/p')
[ -n "$node" ] || skip "slurmd -C describes no node"
port=$((20000 + $$ % 10000 * 2))    # two ports of our own
mkdir "$tmp/state" "$tmp/spool"
conf=$tmp/slurm.conf
cat > "$conf" <<CONF
ClusterName=fieldgraph-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=batch Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
SLURM_CONF=$conf
export SLURM_CONF

slurmctld -D -i -f "$conf" > "$tmp/slurmctld.out.log" 2>&1 &
pids="$pids $!"
i=0
until scontrol ping 2>/dev/null | grep -q UP; do
  i=$((i + 1))
  [ $i -lt 100 ] ||
    skip "slurmctld did not start: $(tail -n 3 "$tmp/slurmctld.log" 2>/dev/null)"
  sleep 0.2
done
slurmd -D -f "$conf" -N "$host" > "$tmp/slurmd.out.log" 2>&1 &
pids="$pids $!"
i=0
until sinfo -h -n "$host" -o %t 2>/dev/null | grep -q idle; do
  i=$((i + 1))
  [ $i -lt 150 ] ||
    skip "slurmd did not register: $(tail -n 3 "$tmp/slurmd.log" 2>/dev/null)"
  sleep 0.2
done
echo "slurm-array: munged, slurmctld and slurmd up in $(($(date +%s) - start)) s"

# ---- the job array: three tasks share the batch ----
ls "$src"/data/samples/*.png "$src"/data/samples/*.jpg > "$tmp/batch.txt"
n=$(wc -l < "$tmp/batch.txt")
submit() {   # NAME: the array's JSON lines go to task-NAME-<index>.jsonl
  timeout 150 sbatch --wait --quiet --array=0-2 --cpus-per-task=1 \
    --chdir="$tmp" --output="$tmp/task-$1-%a.jsonl" \
    --error="$tmp/task-$1-%a.err" \
    --wrap "'$tool' run '$src/examples/lab.fgp' -o '$tmp/out' -q --json \
            --skip-existing --jobs \"\$SLURM_CPUS_PER_TASK\" '@$tmp/batch.txt'" ||
    fail "job array $1 failed or timed out (sbatch exit $?)"
}
submit first

# ---- each input exactly once, each output written ----
cat "$tmp"/task-first-*.jsonl > "$tmp/all.jsonl"
sed -n 's/^{"id":"\([^"]*\)","status":"ok".*/\1/p' "$tmp/all.jsonl" |
  sort > "$tmp/done.txt"
sort "$tmp/batch.txt" > "$tmp/want.txt"
dups=$(uniq -d "$tmp/done.txt")
[ -z "$dups" ] || fail "processed by more than one task: $dups"
diff "$tmp/want.txt" "$tmp/done.txt" ||
  fail "the tasks' JSON lines do not cover the batch once ('<' missed)"
[ "$(wc -l < "$tmp/all.jsonl")" -eq "$n" ] ||
  fail "$(wc -l < "$tmp/all.jsonl") JSON lines for $n inputs"
tasks=0
for f in "$tmp"/task-first-*.jsonl; do
  [ -s "$f" ] && tasks=$((tasks + 1))
done
while read -r id; do
  stem=$(basename "$id"); stem=${stem%.*}
  for suffix in flipped-half lightness; do
    [ -s "$tmp/out/$stem-$suffix.png" ] ||
      fail "no output $stem-$suffix.png"
  done
done < "$tmp/want.txt"

# ---- a retried array finds everything done ----
submit again
redone=$(cat "$tmp"/task-again-*.jsonl | grep -vc '"status":"skipped"')
[ "$redone" -eq 0 ] || fail "the second array processed $redone inputs again"
[ "$(cat "$tmp"/task-again-*.jsonl | wc -l)" -eq "$n" ] ||
  fail "the second array did not report each input once as skipped"
echo "slurm-array: $n inputs, each once, over $tasks array tasks;" \
  "a second array skipped them all; $(($(date +%s) - start)) s in all"
