#!/usr/bin/env bash
# check_ptx.sh KCC SOURCE_ROOT — compile every .k under samples/, tests/kernels/ and
# bench/kernels/ with `kcc compile --arch sm_80` and `--arch sm_90` (samples and
# tests/kernels also with --bounds-check, and for sm_90 with --fastmath), and check that ptxas accepts the PTX for
# that arch. A kernel without parameter types is compiled with the signatures its file
# names in `# ptx-sig: NAME(TYPES)` comments (what Numba would type at the launch); in a
# seed file (seed_*.k) every kernel must be compiled that way. Exit 0 when all pass, 1 on any failure, 77
# (skipped) without ptxas. The CUDA root comes from $CUDA_ROOT (or $CUDA_HOME), else
# /usr/local/cuda.
set -u
kcc=${1:?usage: check_ptx.sh KCC SOURCE_ROOT}
root=${2:?usage: check_ptx.sh KCC SOURCE_ROOT}
cuda=${CUDA_ROOT:-${CUDA_HOME:-/usr/local/cuda}}
ptxas=$cuda/bin/ptxas
[ -x "$ptxas" ] || ptxas=$(command -v ptxas || true)
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "SKIP: ptxas not found under $cuda/bin or on PATH"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcc-ptx.XXXXXX")

# link_foreign ARCH PTX OBJ: the .cu files the PTX's "// kcc-link:" lines name,
# compiled with nvcc -dc, linked with OBJ by nvlink (errors in $tmp/err)
link_foreign() {
  local objs=("$3") i=0 f
  while IFS= read -r f; do
    case $f in *.cu) ;; *) continue ;; esac
    i=$((i + 1))
    "$cuda/bin/nvcc" -arch="$1" -dc "$f" -o "$tmp/link$i.o" 2>"$tmp/err" || return 1
    objs+=("$tmp/link$i.o")
  done < <(sed -n 's|^// kcc-link: ||p' "$2")
  "$cuda/bin/nvlink" -arch="$1" "${objs[@]}" -o "$tmp/linked.cubin" 2>"$tmp/err"
}
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
shopt -s nullglob
files=("$root"/samples/*.k "$root"/tests/kernels/*.k "$root"/bench/kernels/*.k)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL: no .k files under $root/samples or $root/tests/kernels"
  exit 1
fi
for k in "${files[@]}"; do
  name=${k#"$root"/}
  runs=(sm_80 sm_90)
  case $name in bench/*) ;; *) runs+=(sm_80+bounds sm_90+bounds sm_90+fastmath) ;; esac
  for run in "${runs[@]}"; do
    arch=${run%+*}
    flags=()
    case $run in *+bounds) flags=(--bounds-check) ;; *+fastmath) flags=(--fastmath) ;; esac
    while IFS= read -r sig; do flags+=(--sig "$sig"); done < <(sed -n 's/^# ptx-sig: //p' "$k")
    ptx=$tmp/out.ptx
    if ! "$kcc" compile "$k" --arch "$arch" "${flags[@]}" -o "$ptx" 2>"$tmp/err"; then
      echo "FAIL $name ($run): kcc compile failed:"
      sed 's/^/  | /' "$tmp/err" | head -20
      fail=$((fail + 1))
      continue
    fi
    if [[ $name == */seed_* ]] && grep -q "not compiled ahead of time" "$tmp/err"; then
      echo "FAIL $name ($run): a seed kernel is left uncompiled (add a '# ptx-sig:' line):"
      sed 's/^/  | /' "$tmp/err" | head -20
      fail=$((fail + 1))
      continue
    fi
    if ! grep -q "^\.target $arch" "$ptx"; then
      echo "FAIL $name ($run): the PTX does not say .target $arch"
      fail=$((fail + 1))
      continue
    fi
    if ! grep -q "\.entry" "$ptx"; then
      echo "FAIL $name ($run): no .entry in the PTX"
      fail=$((fail + 1))
      continue
    fi
    # PTX that calls foreign functions (link=) is relocatable: ptxas -c, then linked
    # with its .cu files by nvcc -dc and nvlink, as the runtime links it on a GPU
    reloc=(); grep -q '^// kcc-link: ' "$ptx" && reloc=(-c)
    if ! "$ptxas" -arch="$arch" "${reloc[@]}" "$ptx" -o "$tmp/out.cubin" 2>"$tmp/err"; then
      echo "FAIL $name ($run): ptxas rejected the PTX:"
      sed 's/^/  | /' "$tmp/err" | head -20
      fail=$((fail + 1))
      continue
    fi
    if [ ${#reloc[@]} -gt 0 ] && [ -x "$cuda/bin/nvcc" ] && [ -x "$cuda/bin/nvlink" ] &&
       ! link_foreign "$arch" "$ptx" "$tmp/out.cubin"; then
      echo "FAIL $name ($run): linking its link= files failed:"
      sed 's/^/  | /' "$tmp/err" | head -20
      fail=$((fail + 1))
      continue
    fi
    echo "PASS $name ($run)"
    pass=$((pass + 1))
  done
done
echo "$pass passed, $fail failed (ptxas: $ptxas)"
[ $fail -eq 0 ]
