#!/bin/sh
# mpi_heat_test.sh EXE KFILE OUTDIR — the MPI sample on the CPU back end: 1, 2 and 4
# ranks (mpirun --oversubscribe, one CPU thread each) on the same 64 x 96 grid, 200
# steps, must write the same bits, and the 1-rank run must match mpi_heat.c's plain C
# loop (--check). Exits 77 (skipped) where MPI or mpirun is missing: EXE is then "none".
set -u
exe=$1 k=$2 out=$3
if [ "$exe" = none ]; then
  echo "mpi_heat: kcc was built without MPI (libopenmpi-dev): skipped"; exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "mpi_heat: no mpirun (openmpi-bin): skipped"; exit 77; }
mkdir -p "$out"
# Open MPI refuses root unless told; containers often run tests as root
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export KC_DEVICE=cpu
# under AddressSanitizer (make test-all): Open MPI never frees what it allocates at
# MPI_Init (and unloads its plugins first), so leak checking stops at its own memory;
# kcc's is checked by every other test
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# no ssh/rsh agent is needed on one node; shared memory and loopback only; ranks that
# wait yield the core (more ranks than cores here)
export OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1
args="--ny 64 --nx 96 --steps 200 --cpu-threads 1"
status=0
for np in 1 2 4; do
  extra=""
  [ "$np" = 1 ] && extra="--check"
  if ! mpirun -np "$np" --oversubscribe --bind-to none "$exe" $args $extra \
       --out "$out/grid_$np.bin" "$k"; then
    echo "mpi_heat: FAIL: mpirun -np $np failed"; status=1; continue
  fi
  if [ "$np" != 1 ]; then
    if cmp -s "$out/grid_1.bin" "$out/grid_$np.bin"; then
      echo "mpi_heat: OK: $np ranks wrote the same bits as 1 rank"
    else
      echo "mpi_heat: FAIL: $np ranks differ from 1 rank"; status=1
    fi
  fi
done
exit $status
