#!/usr/bin/env bash
# bench/ptx_compare.sh BUILD — kcc's generated code next to nvcc's, statically, for the
# seven kernels of bench/kernels/ and their CUDA C peers bench/cuda/ (sm_90, -O3): PTX
# instructions, SASS instructions (the cubin's .text size / 16 bytes), registers and
# spills (ptxas -v), and the kinds of instruction that decide memory-bound speed:
# read-only loads (ld.global.nc), vector loads, 64-bit integer arithmetic. No GPU is
# needed; it says how the code differs, not how fast it runs (scripts/gpu.sh measures
# that). Prints a table and writes the "## Generated code against nvcc" section of
# docs/performance.md. `make bench` runs it when nvcc and ptxas are installed.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
CUDA=${CUDA_ROOT:-/usr/local/cuda}
ARCH=sm_90
OUT="$BUILD/bench/ptx"
DOC=docs/performance.md
mkdir -p "$OUT"

if [[ ! -x "$CUDA/bin/nvcc" || ! -x "$CUDA/bin/ptxas" ]]; then
  echo "ptx_compare: not run: no nvcc/ptxas under $CUDA"
  exit 0
fi

# The instructions of one .entry of a PTX file: lines inside its body that end in ';'
# and are not declarations (.reg, .shared, .local …).
ptx_instrs() { # file kernel
  awk -v k="$2" '
    $0 ~ "^\\.visible \\.entry " k "\\(" { on = 1 }
    on && /^}/ { exit }
    on && /;[ \t]*$/ && $1 !~ /^\./ && $1 !~ /^\/\// { n++ }
    END { print n + 0 }' "$1"
}
count() { grep -c -E "$2" "$1" || true; }
# SASS instructions: sm_90 instructions are 16 bytes; .text.KERNEL's size from the ELF.
sass_instrs() { # cubin kernel
  local hex
  hex=$(readelf -S -W "$1" 2>/dev/null | awk -v s=".text.$2" '{ sub(/^ *\[ *[0-9]+\] */, "") }
                                                         $1 == s { print $5 }')
  [[ -n "$hex" ]] && echo $(( 16#$hex / 16 ))
}
regs() { grep -o 'Used [0-9]* registers' "$1" | grep -o '[0-9]*' | head -1; }
spills() { grep -o '[0-9]* bytes spill stores' "$1" | grep -o '^[0-9]*' | head -1; }

rows=""
for k in bench/kernels/*.k; do
  name=$(basename "$k" .k)
  cu=bench/cuda/$name.cu
  [[ -f "$cu" ]] || continue
  "$BUILD/kcc" compile -O3 --arch "$ARCH" "$k" -o "$OUT/$name.kcc.ptx"
  "$CUDA/bin/ptxas" -O3 -arch="$ARCH" -v "$OUT/$name.kcc.ptx" -o "$OUT/$name.kcc.cubin" \
    2> "$OUT/$name.kcc.log"
  "$CUDA/bin/nvcc" -ptx -O3 -arch="$ARCH" "$cu" -o "$OUT/$name.nvcc.ptx"
  "$CUDA/bin/ptxas" -O3 -arch="$ARCH" -v "$OUT/$name.nvcc.ptx" -o "$OUT/$name.nvcc.cubin" \
    2> "$OUT/$name.nvcc.log"
  for who in kcc nvcc; do
    p="$OUT/$name.$who.ptx"
    c="$OUT/$name.$who.cubin"
    l="$OUT/$name.$who.log"
    printf -v "$who" '%s|%s|%s|%s|%s|%s|%s' "$(ptx_instrs "$p" "$name")" \
      "$(sass_instrs "$c" "$name")" "$(regs "$l")" "$(spills "$l")" \
      "$(count "$p" 'ld\.global\.nc')" "$(count "$p" 'ld\.global(\.nc)?\.v[24]')" \
      "$(count "$p" '(add|sub|mul|mad|shl|shr)[a-z.]*\.[su]64')"
  done
  IFS='|' read -r kp ks kr kspill knc kv k64 <<< "$kcc"
  IFS='|' read -r np ns nr nspill nnc nv n64 <<< "$nvcc"
  ratio=$(awk -v a="$ks" -v b="$ns" 'BEGIN { printf "%.2fx", b ? a / b : 0 }')
  rows+="| $name | $kp / $np | $ks / $ns | $ratio | $kr / $nr | $kspill / $nspill | $knc / $nnc | $kv / $nv | $k64 / $n64 |"$'\n'
done

TABLE="| kernel | PTX instrs | SASS instrs | SASS kcc/nvcc | registers | spill bytes | ld.global.nc | vector loads | 64-bit int ops |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rows%$'\n'}"
echo "$TABLE"

NVCC_VER=$("$CUDA/bin/nvcc" --version | grep -o 'release [0-9.]*' || echo unknown)
SECTION=$(cat <<MD
## Generated code against nvcc

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); CUDA $NVCC_VER; arch $ARCH
- command: \`bash bench/ptx_compare.sh $BUILD\` (files in \`$OUT/\`)

Static: each cell is kcc / nvcc for \`bench/kernels/NAME.k\` (\`kcc compile -O3 --arch
$ARCH\`) and \`bench/cuda/NAME.cu\` (\`nvcc -ptx -O3 -arch=$ARCH\`), both PTX files assembled
by the same \`ptxas -O3 -v\`. SASS instructions: the size of the kernel's \`.text\`
section in the cubin over 16 bytes (padding included). 64-bit int ops: PTX add, sub,
mul, mad and shifts on 64-bit integers (address arithmetic, mostly). Fewer is not
always faster, but a kernel far above nvcc's count is where to look first; kernel
times on a GPU are in "GPU (bench/gpu)".

$TABLE
MD
)

# shellcheck source=bench/doc_section.sh
source bench/doc_section.sh
write_section "$DOC" "## Generated code against nvcc" "$SECTION"
echo "ptx_compare: wrote $DOC"
