# bench_table.awk — the CPU table of docs/performance.md from the tab-separated lines of
# bench/cpu_bench.c, bench/numba_bench.py (cpu and sim) and bench/jit_scaling.c:
#   row ID LABEL SIZE | val ID COLUMN MS | na ID COLUMN WHY | bad ID COLUMN WHY |
#   note TEXT | skip TEXT | jit STATEMENTS CPU_MS PTX_MS REPS | jitcall CALLS CPU_MS PTX_MS REPS
#   | jitbar naive|tiled CPU_MS PTX_MS REPS
# Prints Markdown; -v reps=N: the runs asked for (a row with fewer says so); -v dat=FILE:
# also write the chart's data there (one line per kernel: ID, then kcc 1T / C, @njit / C,
# kcc 2T / C 2T, @njit parallel / C 2T; "?" = missing).
# Numba columns with no line at all (numba missing) are left out of the table.
BEGIN {
  FS = "\t"
  colname["nj"] = "@njit"; colname["np2"] = "@njit(parallel)"
  colname["vp2"] = "@vectorize(parallel)"; colname["sim"] = "simulator"
}
$1 == "row" { order[++nrows] = $2; label[$2] = $3; size[$2] = $4; next }
$1 == "val" { v[$2, $3] = $4; have[$3] = 1; next }
$1 == "na" { na[$2, $3] = $4; have[$3] = 1; next }
$1 == "bad" { bad[$2, $3] = $4; have[$3] = 1; nbad++; next }
$1 == "note" { notes[++nnotes] = $2; next }
$1 == "skip" { skips[++nskips] = $2; next }
$1 == "jit" { jit[++njit] = sprintf("| %s | %.1f | %.1f | %d |", $2, $3, $4, $5); next }
$1 == "jitcall" { jitc[++njitc] = sprintf("| %s | %.1f | %.1f | %d |", $2, $3, $4, $5); next }
$1 == "jitbar" { barcpu[$2] = $3; barptx[$2] = $4; barruns[$2] = $5; next }

function num(id, col) { return ((id, col) in v) ? v[id, col] + 0 : -1 }
# "MS (RATIOx)" against base, or why there is no figure
function cell(id, col, base,   t) {
  if ((id, col) in bad) return "**differs**"
  if ((id, col) in na) return "n/a"
  t = num(id, col)
  if (t < 0) return "?"
  if (base <= 0) return sprintf("%.2f", t)
  return sprintf("%.2f (%.2fx)", t, t / base)
}
function ratio(id, col, base,   t) {
  t = num(id, col)
  return (t > 0 && base > 0) ? sprintf("%.4f", t / base) : "?"
}
# an extrapolated simulator time, in the unit that reads best
function human(ms) {
  if (ms < 1000) return sprintf("%.0f ms", ms)
  if (ms < 60e3) return sprintf("%.1f s", ms / 1e3)
  if (ms < 3600e3) return sprintf("%.0f min", ms / 60e3)
  return sprintf("%.1f h", ms / 3600e3)
}
function simcell(id) {
  if ((id, "sim") in bad) return "**differs**"
  if ((id, "sim") in na) return "n/a"
  return num(id, "sim") < 0 ? "?" : human(num(id, "sim"))
}

END {
  head = "| kernel | size | C 1T cpu ms | kcc 1T cpu ms (/C) |"
  rule = "|---|---|---:|---:|"
  if (have["nj"]) { head = head " @njit cpu ms (/C) |"; rule = rule "---:|" }
  head = head " C 2T ms | kcc 2T ms (/C 2T) |"; rule = rule "---:|---:|"
  if (have["np2"]) { head = head " @njit(parallel) 2T ms (/C 2T) |"; rule = rule "---:|" }
  if (have["vp2"]) { head = head " @vectorize(parallel) 2T ms (/C 2T) |"; rule = rule "---:|" }
  if (have["sim"]) { head = head " CUDA simulator (extrapolated) |"; rule = rule "---:|" }
  print head
  print rule
  for (r = 1; r <= nrows; r++) {
    id = order[r]
    c1 = num(id, "c1cpu"); c2 = num(id, "c2")
    runs = ((id, "runs") in v && v[id, "runs"] < reps + 0) ? sprintf(" (%d runs)", v[id, "runs"]) : ""
    line = sprintf("| %s%s | %s | %.2f | %s |", label[id], runs, size[id], c1, cell(id, "k1cpu", c1))
    if (have["nj"]) line = line " " cell(id, "nj", c1) " |"
    line = line sprintf(" %.2f | %s |", c2, cell(id, "k2", c2))
    if (have["np2"]) line = line " " cell(id, "np2", c2) " |"
    if (have["vp2"]) line = line " " cell(id, "vp2", c2) " |"
    if (have["sim"]) line = line " " simcell(id) " |"
    print line
    if (dat != "")
      print id, ratio(id, "k1cpu", c1), ratio(id, "nj", c1), ratio(id, "k2", c2),
            ratio(id, "np2", c2) > dat
  }
  print ""
  for (i = 1; i <= nnotes; i++) print "- " notes[i]
  for (i = 1; i <= nskips; i++) print "- Numba columns skipped: " skips[i]
  # why each n/a, with its cells (in table order); then each result that differs
  split("nj np2 vp2 sim", cols, " ")
  for (r = 1; r <= nrows; r++)
    for (c = 1; c <= 4; c++) {
      id = order[r]
      if ((id, cols[c]) in na) {
        w = na[id, cols[c]]
        if (!(w in why)) whys[++nwhy] = w
        why[w] = why[w] (why[w] == "" ? "" : ", ") id " " colname[cols[c]]
      }
      if ((id, cols[c]) in bad) print "- **" id " " colname[cols[c]] ": " bad[id, cols[c]] "**"
    }
  for (i = 1; i <= nwhy; i++) print "- n/a: " whys[i] " (" why[whys[i]] ")"
  if (njit) {
    print ""
    print "JIT compile time of generated kernels (`bench/jit_scaling.c`): CPU = `kc_compile_source`"
    print "on a CPU context (cache off), PTX = source to PTX for sm_80 (`kcc_compile`); CPU time"
    print "of the process in ms, median of the runs counted in the last column."
    print ""
    print "| statements | CPU JIT ms | PTX ms | runs |"
    print "|---:|---:|---:|---:|"
    for (i = 1; i <= njit; i++) print jit[i]
  }
  if (njitc) {
    print ""
    print "The same for kernels calling one device function that holds a loop N times (its"
    print "copies past a budget stay calls: `src/inline_budget.c`):"
    print ""
    print "| calls | CPU JIT ms | PTX ms | runs |"
    print "|---:|---:|---:|---:|"
    for (i = 1; i <= njitc; i++) print jitc[i]
  }
  if (("naive" in barcpu) && ("tiled" in barcpu) && barcpu["naive"] > 0 && barptx["naive"] > 0) {
    print ""
    print "A kernel with a barrier against one without (issue 31: at most 2x): the tiled"
    print "transpose of `bench/cpu_kernels.k` (shared tile, `cuda.syncthreads()`; region form on"
    print "the CPU) and the naive one, compiled alternately:"
    print ""
    print "| kernel | CPU JIT ms | PTX ms | runs |"
    print "|---|---:|---:|---:|"
    printf "| naive transpose | %.1f | %.1f | %d |\n", barcpu["naive"], barptx["naive"], barruns["naive"]
    printf "| tiled transpose + syncthreads | %.1f (%.2fx) | %.1f (%.2fx) | %d |\n", barcpu["tiled"],
      barcpu["tiled"] / barcpu["naive"], barptx["tiled"], barptx["tiled"] / barptx["naive"], barruns["tiled"]
  }
}
