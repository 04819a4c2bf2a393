#!/bin/sh
# cli.sh KCC — the kcc command's contract: exit statuses (0 success, 1 any error, never
# anything else), messages for bad options and files, default output names, -o -,
# --emit=header giving a header that compiles, --emit=cubin through ptxas when present.
# Uses samples/vector_add.k; runs in a scratch directory.
set -u
KCC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=${KC_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SAMPLE=$ROOT/samples/vector_add.k
CC=${CC:-cc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kcc-cli-XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
export NO_COLOR=1
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect STATUS PATTERN -- ARGS...: kcc exits with STATUS and stderr matches PATTERN.
expect() {
  want=$1 pattern=$2
  shift 3
  "$KCC" "$@" >out.txt 2>err.txt
  got=$?
  [ "$got" -eq "$want" ] || fail "kcc $*: exit $got, expected $want ($(cat err.txt))"
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" err.txt; then
    fail "kcc $*: stderr lacks '$pattern': $(cat err.txt)"
  fi
}

# ---- the command itself ------------------------------------------------------------
expect 1 "Usage: kcc" --
expect 0 "" -- --help
grep -q "kcc compile" out.txt || fail "--help does not mention compile"
expect 0 "" -- compile --help
grep -q -- "--emit" out.txt || fail "compile --help does not list --emit"
expect 0 "" -- --version
grep -q "^kcc " out.txt && grep -q "^LLVM " out.txt && grep -q "sm_80" out.txt ||
  fail "--version: $(cat out.txt)"
expect 1 "unknown command 'frob'" -- frob
expect 1 "unknown option '--frob'" -- --frob

# ---- option errors: exit 1, a message, a hint ---------------------------------------
expect 1 "no input file" -- compile
expect 1 "cannot read 'missing.k': No such file or directory" -- compile missing.k
expect 1 "unknown option '--bogus'" -- compile "$SAMPLE" --bogus
expect 1 "Try 'kcc compile --help'" -- compile "$SAMPLE" --bogus
expect 1 "bad optimisation level '-O4'" -- compile "$SAMPLE" -O4
expect 1 "bad --emit 'zip'" -- compile "$SAMPLE" --emit=zip
expect 1 "bad --arch 'sm_x'" -- compile "$SAMPLE" --arch sm_x
expect 1 "sm_81" -- compile "$SAMPLE" --arch=sm_81
expect 1 "bad --sig" -- compile "$SAMPLE" --sig 'vector_add(flaot32[:])'
expect 1 "more than one input file" -- compile "$SAMPLE" "$SAMPLE"
expect 1 "needs --target=nvptx" -- compile "$SAMPLE" --target=host --emit=ptx
expect 1 "bad --target" -- compile "$SAMPLE" --target=gpu
# --block: a block shape for host code, 1 to 1024 threads an axis and in all
expect 1 "--block needs --target=host" -- compile "$SAMPLE" --block=16,16
expect 1 "bad --block '16,0'" -- compile "$SAMPLE" --target=host --emit=llvm --block=16,0
expect 1 "bad --block '64,64'" -- compile "$SAMPLE" --target=host --emit=llvm --block=64,64
expect 1 "bad --block '8,8,8,8'" -- compile "$SAMPLE" --target=host --emit=llvm --block=8,8,8,8
expect 1 "bad --block '16,'" -- compile "$SAMPLE" --target=host --emit=llvm --block=16,
expect 1 "bad --block ''" -- compile "$SAMPLE" --target=host --emit=llvm --block
expect 0 "" -- compile "$SAMPLE" --target=host --emit=llvm --block 256 -o -
expect 1 "cannot read" -- compile "$WORK"
expect 1 "cannot write '/nonexistent/x.ptx'" -- compile "$SAMPLE" -o /nonexistent/x.ptx
# files that are not sources are refused at once, never read for ever (issue 18): each
# under `timeout`, so a hang fails here rather than at the suite's time limit
limited() {   # limited PATTERN -- ARGS...: as expect 1, within 20 s
  pattern=$1
  shift 2
  timeout 20 "$KCC" "$@" >out.txt 2>err.txt </dev/null
  got=$?
  [ "$got" -eq 1 ] || fail "kcc $*: exit $got, expected 1 ($(cat err.txt))"
  grep -q -- "$pattern" err.txt || fail "kcc $*: stderr lacks '$pattern': $(cat err.txt)"
}
limited "cannot read '/dev/zero': a character device, not a regular file" -- compile /dev/zero
limited "a directory, not a regular file" -- compile "$WORK"
mkfifo fifo.k && limited "cannot read 'fifo.k': a FIFO, not a regular file" -- compile fifo.k
# libdevice from the environment is checked as a source file is (a FIFO would block)
printf 'import math\nfrom numba import cuda\n@cuda.jit("void(float32[:])")\ndef k(a):\n    a[0] = math.sin(a[1])\n' >sin.k
saved_libdevice=${KC_LIBDEVICE-}
export KC_LIBDEVICE="$WORK/fifo.k"
limited "libdevice '$WORK/fifo.k' (KC_LIBDEVICE or the configured path) is a FIFO, not a regular file" -- compile sin.k -o sin.ptx
export KC_LIBDEVICE=/dev/zero
limited "libdevice '/dev/zero' (KC_LIBDEVICE or the configured path) is a character device" -- compile sin.k -o sin.ptx
if [ -n "$saved_libdevice" ]; then export KC_LIBDEVICE="$saved_libdevice"; else unset KC_LIBDEVICE; fi
truncate -s 64M big.k && printf x >>big.k &&
  limited "cannot read 'big.k': larger than the 64 MiB limit on a source file" -- compile big.k
head -c 67108865 /dev/zero | timeout 20 "$KCC" compile - >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && grep -q "cannot read '-': larger than the 64 MiB limit" err.txt ||
  fail "kcc compile - of 64 MiB + 1 on stdin: exit $got ($(cat err.txt))"
rm -f fifo.k big.k
[ -e vector_add.ptx ] && fail "an output file was left after errors"

# ---- compiling ------------------------------------------------------------------------
expect 0 "" -- compile "$SAMPLE"
grep -q "\.entry" vector_add.ptx || fail "vector_add.ptx has no .entry"
expect 0 "" -- compile "$SAMPLE" --emit=llvm -O1 --arch sm_90 -o va.ll
grep -q "define" va.ll || fail "--emit=llvm: no define"
expect 0 "" -- compile "$SAMPLE" -o -
grep -q "\.target sm_80" out.txt || fail "-o - did not print PTX for sm_80"
expect 0 "" -- compile "$SAMPLE" --arch=90 --lineinfo -o -
grep -q "\.target sm_90" out.txt || fail "--arch=90 did not give sm_90"
expect 0 "" -- compile "$SAMPLE" --emit=types
[ -s out.txt ] || fail "--emit=types printed nothing"
# instructions an older GPU lacks: an error at the call, not LLVM stopping the process
expect 1 "nanosleep_cbrt.k:14:5: error: cuda.nanosleep needs sm_70 or later, not sm_60" -- \
  compile "$ROOT/tests/filecheck/nanosleep_cbrt.k" --arch sm_60
expect 1 "cuda.match_all_sync needs sm_70 or later, not sm_62" -- \
  compile "$ROOT/tests/kernels/warp.k" --arch sm_62
expect 0 "" -- compile "$ROOT/tests/filecheck/nanosleep_cbrt.k" --arch sm_60 --target=host --emit=llvm
expect 1 "cuda.shfl_down_sync needs sm_30 or later, not sm_20" -- \
  compile "$ROOT/samples/block_sum.k" --arch sm_20
# below sm_75, PTX 6.3: sm_60 has the *_sync warp intrinsics (PTX 6.0 and later)
expect 0 "" -- compile "$ROOT/samples/block_sum.k" --arch sm_60 -o bs60.ptx
grep -q "^\.version 6\.3" bs60.ptx && grep -q "shfl\.sync" bs60.ptx ||
  fail "block_sum for sm_60: not PTX 6.3 with shfl.sync"
expect 0 "" -- compile "$SAMPLE" --emit=ast
[ -s out.txt ] || fail "--emit=ast printed nothing"
expect 0 "" -- compile - -o stdin.ptx <"$SAMPLE"
grep -q "\.entry" stdin.ptx || fail "reading standard input"

# a compile error: GCC format, exit 1, no output file
printf 'from numba import cuda\n@cuda.jit\ndef k(a: float32[:]):\n    a[0] = undefined_name\n' >bad.k
expect 1 "bad.k:4:" -- compile bad.k
[ -e bad.ptx ] && fail "bad.ptx written despite errors"

# --emit=header: a header that compiles against kc.h
expect 0 "" -- compile "$SAMPLE" --emit=header
[ -f vector_add_kc.h ] || fail "no vector_add_kc.h"
grep -q "vector_add_vector_add_launch" vector_add_kc.h || fail "no launch function in header"
printf '#include "vector_add_kc.h"\nint main(void) { return vector_add_ptx[0] == 0; }\n' >use.c
$CC -std=c11 -Wall -Wextra -Werror -pedantic -I"$ROOT/include" -I. -c use.c -o use.o ||
  fail "the generated header does not compile"

grep -q "vector_add_cubin" vector_add_kc.h && fail "a cubin in the header without --arch"

# --emit=header with tuple parameters: the launcher takes their elements one by one
printf 'from numba import cuda\n@cuda.jit("void(float32[:], UniTuple(float32, 2), '\
'Tuple((int32, float64)))")\ndef tk(a, w, p):\n    a[0] = w[1] + p[0]\n' >tk.k
expect 0 "" -- compile tk.k --emit=header
printf '#include "tk_kc.h"\nkc_status f(kc_module *m, kc_array *a);\n'\
'kc_status f(kc_module *m, kc_array *a) {\n'\
'  return tk_tk_launch(m, NULL, kc_dim(1), kc_dim(1), a, 1.0f, 2.0f, 3, 4.0);\n}\n' >use_tk.c
$CC -std=c11 -Wall -Wextra -Werror -pedantic -I"$ROOT/include" -I. -c use_tk.c -o use_tk.o ||
  fail "the header of a kernel with tuple parameters does not compile"

# --fastmath: fast-math PTX (the division of a float32 kernel is approximate and flushes
# denormals), also asked of the header's CPU fallback, as --bounds-check is
printf 'from numba import cuda, float32\n@cuda.jit\ndef q(a: float32[:], b: float32[:]):\n'\
'    a[0] = a[0] / b[0]\n' >q.k
expect 0 "" -- compile q.k -o -
grep -q "div\.rn\.f32" out.txt || fail "no div.rn.f32 without --fastmath"
expect 0 "" -- compile q.k --fastmath -o -
grep -q "div\.approx\.ftz\.f32" out.txt || fail "--fastmath: no div.approx.ftz.f32"
grep -q "div\.rn" out.txt && fail "--fastmath: div.rn left"
expect 0 "" -- compile q.k --emit=header --fastmath --bounds-check

# --device-functions: a device function with a declared signature, called by no kernel,
# compiled on its own as a visible function (none without the option)
printf 'from numba import cuda\n@cuda.jit("float32(float32, float32)", device=True)\n'\
'def hyp(x, y):\n    return x * x + y * y\n' >dev.k
expect 0 "" -- compile dev.k -o -
grep -q "hyp" out.txt && fail "a device function no kernel calls was compiled"
expect 0 "" -- compile dev.k --device-functions -o -
grep -q "\.visible \.func  (\.param \.b32 func_retval0) hyp" out.txt ||
  fail "--device-functions: no visible hyp"
expect 0 "" -- compile dev.k --device-functions --emit=types -o -
grep -q "device hyp.*(float32, float32) -> float32" out.txt ||
  fail "--device-functions --emit=types: hyp not listed"
grep -q "opts\.fastmath = 1;" q_kc.h || fail "--emit=header --fastmath: not passed to the CPU fallback"
grep -q "opts\.bounds_check = 1;" q_kc.h ||
  fail "--emit=header --bounds-check: not passed to the CPU fallback"
expect 0 "" -- compile q.k --emit=header
grep -q "opts\.fastmath" q_kc.h && fail "--emit=header without --fastmath asks for it"

# --sig in Numba's Record spelling: an untyped kernel typed for an array of records
printf 'from numba import cuda\n@cuda.jit\ndef rk(a, out):\n    out[0] = a[0].x + a[1].y\n' >rec.k
REC='Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)'
expect 0 "" -- compile rec.k --sig "rk($REC[:], float32[:])" -o -
grep -qF "kcc-kernel: rk rk($REC[:], float32[:])" out.txt ||
  fail "--sig with a Record: no kernel table line naming the record"
expect 1 "record has no field 'y' (its fields: 'x', 'z')" -- compile rec.k --sig \
  'rk(Record(x[type=float32;offset=0],z[type=int32;offset=4];8;False)[:], float32[:])'
expect 1 "unknown field type 'flaot32'" -- compile rec.k --sig \
  'rk(Record(x[type=flaot32;offset=0];4;False)[:], float32[:])'

# @cuda.reduce ahead of time: with no --sig it is compiled for the usual number types;
# --sig takes the binary function's own signature; the generated kernel's parameters
# (T[:], T[:], T, bool) never show in a message
printf 'from numba import cuda\n@cuda.reduce\ndef radd(a, b):\n    return a + b\n' >r.k
expect 0 "" -- compile r.k -o -
for t in int32 int64 uint32 uint64 float32 float64; do
  grep -q "\.entry radd__$t(" out.txt || fail "reduce without --sig: no $t kernel"
done
expect 0 "" -- compile r.k --sig 'radd(float32, float32)' -o -
grep -q "\.entry radd(" out.txt || fail "reduce --sig 'radd(float32, float32)': no radd entry"
grep -c "\.entry" out.txt | grep -qx 1 || fail "reduce --sig: more than the one kernel"
expect 1 "T(T, T)" -- compile r.k --sig 'radd(float32[:], int32)'
grep -q "bool)" err.txt && fail "a reduce --sig error shows the generated kernel's shape"
printf 'from numba import cuda\n@cuda.reduce\ndef rbits(a, b):\n    return a ^ b\n' >rb.k
expect 0 "" -- compile rb.k -o -
grep -q "\.entry rbits__float32(" out.txt && fail "a bitwise reducer compiled for float32"
grep -q "\.entry rbits__uint64(" out.txt || fail "a bitwise reducer lacks uint64"

# --sig for an annotated kernel: the annotated signature keeps the kernel's name
expect 0 "" -- compile q.k --sig 'q(float64[:], float64[:])' -o -
grep -q "\.entry q(" out.txt || fail "--sig renamed the annotated signature's entry"
grep -q "\.entry q__float64" out.txt || fail "--sig on an annotated kernel: no float64 entry"

# --emit=cubin, and --emit=header --arch with the same cubin embedded, when ptxas is
# installed; without it the header carries PTX only and says so
if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
  expect 0 "" -- compile "$SAMPLE" --emit=cubin --arch=sm_80
  [ -s vector_add.cubin ] || fail "no vector_add.cubin"
  expect 0 "" -- compile "$SAMPLE" --emit=header --arch=sm_80 -o cubin_kc.h
  grep -q "#define vector_add_CUBIN_ARCH 80" cubin_kc.h || fail "no cubin arch in the header"
  printf '#include <stdio.h>\n#include "cubin_kc.h"\nint main(void) {\n'\
'  fwrite(vector_add_cubin, 1, sizeof vector_add_cubin, stdout);\n  return 0;\n}\n' >dump.c
  if $CC -std=c11 -Wall -Wextra -Werror -pedantic -I"$ROOT/include" -I. dump.c -o dump; then
    ./dump >embedded.cubin
    cmp -s embedded.cubin vector_add.cubin || fail "the header's cubin is not --emit=cubin's"
    grep -q "__kcc_kernels" embedded.cubin || fail "the cubin lacks the kernel table"
  else
    fail "the header with a cubin does not compile"
  fi
else
  echo "ptxas not found: --emit=cubin not tested"
  expect 0 "no ptxas" -- compile "$SAMPLE" --emit=header --arch=sm_80 -o cubin_kc.h
fi

[ "$fails" -eq 0 ] && echo "cli: all passed"
[ "$fails" -eq 0 ]
