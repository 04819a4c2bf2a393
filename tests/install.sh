#!/bin/bash
# install.sh BUILD SOURCE — kcc as a user gets it: `meson install --destdir` into a
# scratch directory, then, with nothing but the installed tree:
#   - kc.pc and kcrt.pc (under the multiarch libdir) name the installed libdir and
#     includedir, with `pkg-config --define-prefix` and without;
#   - the installed kcc writes samples/vector_add.k as a header, and
#     samples/vector_add_aot.c is built with `pkg-config --cflags --libs` against kc and
#     against kcrt, and run (LD_LIBRARY_PATH into the destdir): linked with libkc it
#     compiles the header's source on the CPU and checks its sum against C; linked with
#     libkcrt it refuses with its message (exit 77) and needs no libLLVM;
#   - the shared libraries carry their sonames, and kcc(1) and the docs are installed
#     (the man page formats without warnings where groff is installed).
set -u
BUILD=$1 SRC=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kcc-install-XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

D=$WORK/dest
meson install -C "$BUILD" --destdir "$D" --no-rebuild --quiet >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; echo "FAIL: meson install"; exit 1; }

PC=$(find "$D" -name kcrt.pc -path '*/pkgconfig/*')
[ -n "$PC" ] && [ -f "$(dirname "$PC")/kc.pc" ] || { echo "FAIL: no kc.pc and kcrt.pc in $D"; exit 1; }
LIBDIR=$(cd "$(dirname "$PC")/.." && pwd -P)
INCDIR=$(dirname "$(find "$D" -name kc.h)")
KCC=$(find "$D" -path '*/bin/kcc')
export PKG_CONFIG_PATH=$(dirname "$PC") PKG_CONFIG_LIBDIR=/nonexistent
for lib in kc kcrt; do
  [ -f "$LIBDIR/lib$lib.so.0" ] || fail "no lib$lib.so.0 in $LIBDIR"
  readelf -d "$LIBDIR/lib$lib.so" | grep -q "SONAME.*\[lib$lib.so.0\]" || fail "lib$lib.so: soname"
  for mode in --define-prefix --dont-define-prefix; do
    got=$(cd "$(pkg-config $mode --variable=libdir $lib)" 2>/dev/null && pwd -P)
    [ "$got" = "$LIBDIR" ] || fail "pkg-config $mode: $lib's libdir is '$(pkg-config $mode --variable=libdir $lib)', not $LIBDIR"
    got=$(cd "$(pkg-config $mode --variable=includedir $lib)" 2>/dev/null && pwd -P)
    [ "$got" = "$(cd "$INCDIR" && pwd -P)" ] || fail "pkg-config $mode: $lib's includedir is '$(pkg-config $mode --variable=includedir $lib)', not $INCDIR"
  done
done

"$KCC" compile "$SRC/samples/vector_add.k" --emit=header -o "$WORK/vector_add_kc.h" ||
  fail "the installed kcc could not write the header"
CC=${CC:-cc}
for lib in kc kcrt; do
  # shellcheck disable=SC2046  # pkg-config's flags are words
  $CC -o "$WORK/aot_$lib" "$SRC/samples/vector_add_aot.c" -I"$WORK" \
      $(pkg-config --define-prefix --cflags --libs $lib) 2>"$WORK/cc.log" ||
    fail "cc against the installed $lib: $(cat "$WORK/cc.log")"
done
export LD_LIBRARY_PATH=$LIBDIR KC_DEVICE=cpu
if [ -x "$WORK/aot_kc" ]; then
  ldd "$WORK/aot_kc" | grep -q "libkc.so.0 => $D" || fail "aot_kc does not load the installed libkc: $(ldd "$WORK/aot_kc")"
  out=$("$WORK/aot_kc" 2>&1) || fail "aot_kc (libkc) on the CPU: $out"
  case $out in *"OK on cpu"*) ;; *) fail "aot_kc: $out" ;; esac
fi
if [ -x "$WORK/aot_kcrt" ]; then
  ldd "$WORK/aot_kcrt" | grep -q "libkcrt.so.0 => $D" || fail "aot_kcrt does not load the installed libkcrt: $(ldd "$WORK/aot_kcrt")"
  ldd "$WORK/aot_kcrt" | grep -q libLLVM && fail "aot_kcrt needs libLLVM"
  out=$("$WORK/aot_kcrt" 2>&1)
  rc=$?
  [ $rc -eq 77 ] || fail "aot_kcrt (libkcrt) on the CPU: exit $rc, expected 77: $out"
  case $out in *"linked with libkcrt"*"link libkc (pkg-config kc)"*) ;; *) fail "aot_kcrt: $out" ;; esac
fi

MAN=$(find "$D" -path '*/man1/kcc.1')
[ -n "$MAN" ] || fail "kcc.1 is not installed"
if [ -n "$MAN" ] && command -v groff >/dev/null; then
  warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$MAN" 2>&1)
  [ -z "$warn" ] || fail "groff on kcc.1: $warn"
fi
for doc in README.md cli.md language.md runtime.md embedding.md; do
  [ -n "$(find "$D" -path "*/doc/kcc/$doc")" ] || fail "$doc is not installed"
done
[ "$fails" -eq 0 ] && echo "installed tree: pkg-config kc and kcrt, both programs built and run"
exit $((fails > 0))
