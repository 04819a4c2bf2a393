#!/usr/bin/env bash
# bench/mpi_scaling.sh BUILD — weak scaling of samples/mpi_heat on the CPU back end:
# 1, 2 and 4 ranks (one CPU thread each), the same slab per rank, each rank count run
# REPS times; the run with the median time per step is kept. Writes the "## Weak
# scaling on this machine" section of docs/distributed.md (the table, the command, the
# machine's cores and load average). `make bench` runs this; skipped, saying so, when
# the build has no mpi_heat (no MPI at configure time) or mpirun is missing.
#
#   BUILD   the Meson build directory (default: build)
#   ROWS=N  interior rows per rank (default 512)   NX=N  columns (default 2048)
#   STEPS=N Jacobi steps (default 100)             REPS=N runs per rank count (default 3)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROWS=${ROWS:-512} NX=${NX:-2048} STEPS=${STEPS:-100} REPS=${REPS:-3}
EXE="$BUILD/samples/mpi_heat"
DOC=docs/distributed.md
if [[ ! -x "$EXE" ]] || ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi_scaling: no $EXE or no mpirun (Open MPI: make deps): skipped"
  exit 0
fi
[[ "$(id -u)" != 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ranks waiting in MPI yield their core (busy polling would starve a neighbour when
# there are more ranks than cores, as with 4 here)
export KC_DEVICE=cpu OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for np in 1 2 4; do
  runs=()
  for ((r = 0; r < REPS; r++)); do
    line=$(mpirun -np "$np" --oversubscribe --bind-to none "$EXE" --rows-per-rank "$ROWS" \
             --nx "$NX" --steps "$STEPS" --cpu-threads 1 --time samples/mpi_heat.k |
           grep '^mpi_heat: time ')
    ms=$(sed 's/.*ms_per_step=\([^ ]*\).*/\1/' <<<"$line")
    share=$(sed 's/.*comm_share=\([^ ]*\).*/\1/' <<<"$line")
    runs+=("$ms $share")
    echo "mpi_scaling: $np ranks: $line" >&2
  done
  med=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p")
  rows+=("$np $med")
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

base=$(awk '{print $2; exit}' <<<"${rows[0]}")
table="| ranks | grid (rows x columns) | ms per step | efficiency (t1 / tN) | halo share |
|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
  read -r np ms share <<<"$row"
  table+=$'\n'$(awk -v np="$np" -v ms="$ms" -v sh="$share" -v b="$base" -v r="$ROWS" \
    -v nx="$NX" 'BEGIN { printf "| %d | %d x %d | %.3f | %.0f %% | %.1f %% |", np, np * r, nx,
    ms, 100 * b / ms, 100 * sh }')
done

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh
body="## Weak scaling on this machine

Measured by \`bench/mpi_scaling.sh\` (\`make bench\`) on $(date -u +%Y-%m-%d): $ROWS rows
of $NX columns per rank, float64, $STEPS steps, CPU back end with one thread per rank
(\`KC_DEVICE=cpu\`, \`--cpu-threads 1\`), Open MPI's shared-memory transport; the median
of $REPS runs. The machine has $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')),
so 4 ranks share 2 cores. Load average before and after: $load_start / $load_end.

$table

Efficiency is the 1-rank time per step over the N-rank one (100 % is perfect weak
scaling); the halo share is the part of the ranks' stepping time spent in the exchange,
waiting for a neighbour included. Each rank's compute is the same at every rank count,
so what grows is that wait: with more busy processes than cores (this machine's load
average above, 4 ranks on 2 cores), a rank that needs its neighbour's row waits until
the scheduler runs the neighbour, every step. The bytes moved are two rows of $NX
float64 each way per step, microseconds over shared memory; on a machine with a core
(or a GPU) per rank and nothing else running, expect the share to be small for slabs
this size.

\`\`\`
mpirun -np N --oversubscribe --bind-to none build/samples/mpi_heat \\
  --rows-per-rank $ROWS --nx $NX --steps $STEPS --cpu-threads 1 --time samples/mpi_heat.k
\`\`\`"
write_section "$DOC" "## Weak scaling on this machine" "$body"
echo "mpi_scaling: wrote $DOC"
printf '%s\n' "$table"
