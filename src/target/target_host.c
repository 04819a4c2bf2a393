/*
 * target_host.c — the host (CPU) back end's module-level work: the triple and data
 * layout of this machine's CPU, LLVM's standard pipeline with vectorisation, and
 * machine code in memory through ORC's LLJIT.
 *
 * The JIT'd code calls nothing but the C library and its maths functions (the
 * executor's services are reached through function pointers, see host_abi.h). The
 * maths functions are given to the JIT by address, so they resolve even when this
 * program did not link libm's shared object itself; anything else is looked up in the
 * process.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* sincos, sincosf */
#endif
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "libdevice_host.h"
#include "target.h"
#include "types.h"

struct kcc_host_code {
  LLVMOrcLLJITRef jit;
  pthread_mutex_t lock;  /* guards first_error: the JIT may report from any thread */
  char *first_error;     /* the first error the JIT or LLVM reported (malloc) */
};

static pthread_once_t host_init_once = PTHREAD_ONCE_INIT;
static int host_init_failed;  /* written once, under host_init_once */

static void host_init_llvm(void) {
  tgt_install_fatal_handler();
  host_init_failed = LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter();
#if LLVM_VERSION_MAJOR < 20
  /* IRCE (host_run_pipeline) before LLVM 20 only takes a range check that branch
     probabilities say is passed at least 15 times in 16; without profile data the
     `if i < n:` guard counts as even odds, so the guard was never split out and the
     vectoriser masked every load and store (checked with 19). LLVM 20 and later judge
     by how many checks the split removes, which the guard in a block's loop passes
     (checked with 22); skipping the check here comes closest (IRCE then splits every
     loop it can, which never changes results). */
  static const char *const args[] = {"kcc", "-irce-skip-profitability-checks"};
  LLVMParseCommandLineOptions(2, args, NULL);
#endif
}


static LLVMCodeGenOptLevel host_codegen_level(int opt_level) {
  switch (opt_level) {
  case 0: return LLVMCodeGenLevelNone;
  case 1: return LLVMCodeGenLevelLess;
  case 2: return LLVMCodeGenLevelDefault;
  default: return LLVMCodeGenLevelAggressive;
  }
}

/* ---- The CPU to compile for --------------------------------------------------------- */

/* Besides this CPU with all its features, x86-64's baselines (for code that must run on
 * other machines, or under valgrind, which mis-emulates BMI2's bzhi that LLVM picks for
 * this CPU), with the features the CPU that runs their code must have (the newest each
 * level adds). LLVM cannot be asked whether it knows a CPU (an unknown one is ignored
 * with a message on stderr, the code then built for a generic one), so only these
 * names are taken. */
static const struct { const char *name, *needs; } host_levels[] = {
  {"x86-64", ""},
  {"x86-64-v2", "sse4.2,popcnt"},
  {"x86-64-v3", "avx2,bmi2,fma"},
  {"x86-64-v4", "avx512f,avx512bw,avx512dq,avx512vl"},
};
enum { HOST_NLEVELS = sizeof host_levels / sizeof host_levels[0] };

/* The setting in force: cpu (kcc_options.cpu, kc_config.cpu_target), else
 * $KC_CPU_TARGET, else $KC_HOST_CPU (its older name); *from says which. NULL: none. */
static const char *host_cpu_setting(const char *cpu, const char **from) {
  static const char *const vars[] = {"KC_CPU_TARGET", "KC_HOST_CPU"};
  *from = "the CPU target";
  if (cpu && *cpu) return cpu;
  for (int i = 0; i < 2; i++) {
    const char *v = getenv(vars[i]);
    *from = vars[i];
    if (v && *v) return v;
  }
  return NULL;
}

/* *level: the index in host_levels of the CPU asked for, or -1 for this CPU. */
static int host_cpu_level(const char *cpu, int *level, char **err) {
  const char *from, *want = host_cpu_setting(cpu, &from);
  *level = -1;
  if (!want || strcmp(want, "host") == 0) return 0;
#if defined(__x86_64__)
  for (int i = 0; i < HOST_NLEVELS; i++)
    if (strcmp(want, host_levels[i].name) == 0) {
      *level = i;
      return 0;
    }
  return tgt_fail(err, "%s '%s' is not one of host, x86-64, x86-64-v2, x86-64-v3, "
                  "x86-64-v4", from, want);
#else
  return tgt_fail(err, "%s '%s': only 'host' is known on this machine", from, want);
#endif
}

int host_cpu_check(const char *cpu, const char **name, char **err) {
  int level;
  *name = NULL;
  if (host_cpu_level(cpu, &level, err)) return 1;
  *name = level < 0 ? "host" : host_levels[level].name;
  return 0;
}

/* Whether feature f (len bytes) is on in LLVM's list of this CPU's features,
 * "+sse4.2,-avx512fp16,…". */
static bool host_has_feature(const char *features, const char *f, size_t len) {
  for (const char *p = features; *p; p += *p == ',') {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && p[0] == '+' && strncmp(p + 1, f, len) == 0) return true;
    p += n;
  }
  return false;
}

/* This CPU's features for code generation: all of them but the bfloat16 conversions
 * (AVX512-BF16, AVX-NE-CONVERT), whose vcvtneps2bf16 takes a subnormal float32 as zero,
 * where the GPU's cvt.rn.bf16.f32 rounds it: without them LLVM calls __truncsfbf2, which
 * rounds every value as the GPU does. NULL when out of memory. */
static char *host_codegen_features(void) {
  static const char off[] = ",-avx512bf16,-avxneconvert";
  char *f = LLVMGetHostCPUFeatures();
  size_t n = f ? strlen(f) : 0;
  char *r = malloc(n + sizeof off);
  if (r) {
    memcpy(r, f ? f : "", n);
    memcpy(r + n, n ? off : off + 1, sizeof off - (n ? 0 : 1));
  }
  if (f) LLVMDisposeMessage(f);
  return r;
}

/* Code for level can run here: this CPU has every feature the level needs. */
static int host_level_runs_here(int level, char **err) {
  if (level < 0) return 0;
  char *features = LLVMGetHostCPUFeatures();
  const char *need = host_levels[level].needs;
  int rc = 0;
  while (*need && !rc) {
    size_t len = strcspn(need, ",");
    if (!host_has_feature(features ? features : "", need, len))
      rc = tgt_fail(err, "code for %s cannot run on this CPU: it lacks %.*s",
                    host_levels[level].name, (int)len, need);
    need += len + (need[len] == ',');
  }
  if (features) LLVMDisposeMessage(features);
  return rc;
}

int host_target_id(const char *cpu, char **id, char **err) {
  int level;
  *id = NULL;
  if (host_cpu_level(cpu, &level, err)) return 1;
  pthread_once(&host_init_once, host_init_llvm);
  char *name = level < 0 ? LLVMGetHostCPUName() : NULL;
  char *features = level < 0 ? host_codegen_features() : NULL;
  const char *n = level < 0 ? name : host_levels[level].name, *f = features ? features : "";
  size_t len = strlen(n) + strlen(f) + 2;
  *id = malloc(len);
  if (*id) snprintf(*id, len, "%s %s", n, f);
  if (name) LLVMDisposeMessage(name);
  free(features);
  return *id ? 0 : tgt_fail(err, "out of memory");
}

/* A target machine for the CPU asked for (cpu, see host_cpu_setting): this one, with
 * its name and features (AVX…), or a baseline; position independent as the JIT prefers. */
static LLVMTargetMachineRef host_target_machine(int opt_level, const char *cpu, char **err) {
  pthread_once(&host_init_once, host_init_llvm);
  if (host_init_failed) {
    tgt_fail(err, "LLVM has no code generator for this machine");
    return NULL;
  }
  int level;
  if (host_cpu_level(cpu, &level, err)) return NULL;
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    tgt_fail_llvm(err, "no LLVM target for this machine", msg);
  } else {
    char *host_cpu = level < 0 ? LLVMGetHostCPUName() : NULL;
    char *features = level < 0 ? host_codegen_features() : NULL;
    const char *cpu_name = level < 0 ? host_cpu : host_levels[level].name;
    tm = LLVMCreateTargetMachine(target, triple, cpu_name, features ? features : "",
                                 host_codegen_level(opt_level), LLVMRelocPIC,
                                 LLVMCodeModelJITDefault);
    if (!tm) tgt_fail(err, "cannot create a target machine for %s (%s)", triple, cpu_name);
    if (host_cpu) LLVMDisposeMessage(host_cpu);
    free(features);
  }
  LLVMDisposeMessage(triple);
  return tm;
}

int host_prepare_module(LLVMModuleRef m, const char *cpu, char **err) {
  LLVMTargetMachineRef tm = host_target_machine(3, cpu, err);
  if (!tm) return 1;
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetTarget(m, triple);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMDisposeMessage(triple);
  LLVMDisposeTargetMachine(tm);
  return 0;
}

/* LLVM reports some errors to the context's diagnostic handler, whose default prints
 * and exits; while optimising, this one keeps the first error instead. */
typedef struct host_diag_capture {
  LLVMDiagnosticHandler saved;
  void *saved_ctx;
  char *first_error;
} host_diag_capture;

static void host_on_diagnostic(LLVMDiagnosticInfoRef di, void *p) {
  host_diag_capture *c = p;
  if (LLVMGetDiagInfoSeverity(di) == LLVMDSError && !c->first_error)
    c->first_error = LLVMGetDiagInfoDescription(di);
}

/* LLVM's standard pipeline at opt_level. From -O2 up it runs in two rounds, because a
 * kernel's `if i < n:` guard would otherwise cost a mask on every vector load and store:
 * K__block is a loop over threadIdx.x with the guard inside, and the vectoriser turns a
 * condition on the induction variable into masked memory operations (2-3x slower than
 * plain ones on a streaming kernel). The first round (ThinLTO's pre-link pipeline: the
 * standard simplification, no vectorisation) inlines the kernel body into the loop;
 * then inductive range check elimination (IRCE, which the standard pipeline lacks)
 * splits the loop's range where the guard holds throughout (all of every block but
 * the last, usually) from the rest, and the standard pipeline vectorises the guard-free
 * loop with plain loads and stores. Around the rounds, host_budget.c keeps big kernels'
 * compile time in check (target.h says how). */
static int host_run_pipeline(LLVMModuleRef m, int opt_level, LLVMTargetMachineRef tm,
                             char **err) {
  /* default<On> is thinlto-pre-link<On> followed by the passes of VECTORISE (LLVM's
     module optimisation pipeline, less what only matters for PGO or coroutines) */
#define VECTORISE_(n, f2i, slp)                                                          \
  "function(irce,simplifycfg," IC "," f2i "lower-constant-intrinsics,"                   \
  "loop(loop-rotate,loop-deletion),"                                                     \
  "loop-distribute,inject-tli-mappings,loop-vectorize,infer-alignment,loop-load-elim,"   \
  IC ",simplifycfg," slp "vector-combine," IC ",loop-unroll<" n ">,"                     \
  "sroa,infer-alignment," IC ",loop-mssa(licm),alignment-from-assumptions,"              \
  "loop-sink,instsimplify,div-rem-pairs,tailcallelim,simplifycfg),globaldce"
#define VECTORISE(n) VECTORISE_(n, "float2int,", "slp-vectorizer,")
#define VECTORISE_BIG(n) VECTORISE_(n, "", "")   /* see host_has_big_block */
  /* instcombine as the standard pipelines run it: spelled bare in a pipeline string it
     checks that one run reached a fixpoint and stops the process when not (a check
     meant for LLVM's own tests, which some loops with compare-and-swap trip) */
#define IC "instcombine<no-verify-fixpoint>"
  static const char *const rounds[4][2] = {
    {"default<O0>", NULL},
    {"default<O1>", NULL},
    {"thinlto-pre-link<O2>", VECTORISE("O2")},
    {"thinlto-pre-link<O3>", VECTORISE("O3")},
  };
  static const char *const big_rounds[4] = {NULL, NULL, VECTORISE_BIG("O2"), VECTORISE_BIG("O3")};
#undef VECTORISE
#undef VECTORISE_BIG
#undef VECTORISE_
#undef IC
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  host_diag_capture cap = {LLVMContextGetDiagnosticHandler(ctx),
                           LLVMContextGetDiagnosticContext(ctx), NULL};
  LLVMContextSetDiagnosticHandler(ctx, host_on_diagnostic, &cap);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, opt_level >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, opt_level >= 2);
  LLVMPassBuilderOptionsSetLoopInterleaving(opts, opt_level >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, opt_level >= 2);
  LLVMErrorRef e = NULL;
  host_outline_big_functions(m, HOST_OUTLINE_BUDGET);
  if (opt_level > 0) tgt_bound_inlining(m, TGT_INLINE_BUDGET);
  for (int r = 0; r < 2 && !e && rounds[opt_level][r]; r++) {
    const char *passes = rounds[opt_level][r];
    if (r == 1) {
      host_prepare_guards(m);  /* lower bounds in IRCE's form, see there */
      host_limit_big_loops(m, HOST_LOOP_BUDGET);
      if (host_has_big_block(m, HOST_BLOCK_BUDGET)) passes = big_rounds[opt_level];
    }
    e = LLVMRunPasses(m, passes, tm, opts);
  }
  LLVMDisposePassBuilderOptions(opts);
  LLVMContextSetDiagnosticHandler(ctx, cap.saved, cap.saved_ctx);
  if (e) {
    if (cap.first_error) LLVMDisposeMessage(cap.first_error);
    return tgt_fail_error(err, "internal error: optimisation failed", e);
  }
  if (cap.first_error)
    return tgt_fail_llvm(err, "internal error: optimisation failed", cap.first_error);
  return 0;
}

int host_optimize(LLVMModuleRef m, int opt_level, const char *cpu, char **err) {
  if (opt_level < 0) opt_level = 0;
  if (opt_level > 3) opt_level = 3;
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    return tgt_fail_llvm(err, "internal error: invalid LLVM IR", msg);
  if (msg) LLVMDisposeMessage(msg);
  LLVMTargetMachineRef tm = host_target_machine(opt_level, cpu, err);
  if (!tm) return 1;
  tgt_set_stage("optimising for the CPU back end", m);
  int rc = host_run_pipeline(m, opt_level, tm, err);
  if (rc == 0 && opt_level >= 1) host_split_big_blocks(m, HOST_BLOCK_BUDGET);
  tgt_set_stage(NULL, NULL);
  LLVMDisposeTargetMachine(tm);
  return rc;
}

char *host_emit_llvm(LLVMModuleRef m) {
  char *ir = LLVMPrintModuleToString(m);
  size_t len = strlen(ir);
  char *text = malloc(len + 1);
  if (text) memcpy(text, ir, len + 1);
  LLVMDisposeMessage(ir);
  return text;
}

/* ---- The JIT ------------------------------------------------------------------------ */

/* llvm.powi lowers to these compiler-rt/libgcc helpers, which the process may lack. */
static float host_powisf2(float a, int b) {
  unsigned n = b < 0 ? -(unsigned)b : (unsigned)b;
  float r = 1;
  for (; n; n >>= 1, a *= a)
    if (n & 1) r *= a;
  return b < 0 ? 1 / r : r;
}

static double host_powidf2(double a, int b) {
  unsigned n = b < 0 ? -(unsigned)b : (unsigned)b;
  double r = 1;
  for (; n; n >>= 1, a *= a)
    if (n & 1) r *= a;
  return b < 0 ? 1 / r : r;
}

/* Conversions to and from float16 lower to these helpers where the CPU has no
 * instruction (float64 -> float16 always on x86-64 without AVX512-FP16), and the process
 * may lack them too. float64 -> float16 rounds once, to nearest even: a conversion
 * through float32 would round twice and can miss a tie (1 + 2**-11 + 2**-40). */
static uint16_t host_half_bits(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  uint16_t sign = (uint16_t)(b >> 48 & 0x8000u);
  int e = (int)(b >> 52 & 0x7ff);
  uint64_t m = b & ((1ull << 52) - 1);
  if (e == 0x7ff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u | (unsigned)(m >> 42) : 0));
  int he = e - 1023 + 15;                       /* the biased float16 exponent */
  if (he >= 31) return sign | 0x7c00u;          /* overflows: infinity */
  if (e == 0) return sign;                      /* a float64 subnormal: far below 2**-25 */
  uint64_t full = m | 1ull << 52;
  int shift = he > 0 ? 42 : 42 + 1 - he;        /* bits dropped: 42, more for subnormals */
  if (shift > 53) return sign;                  /* below half the smallest subnormal */
  uint64_t h = full >> shift, rest = full & ((1ull << shift) - 1), tie = 1ull << (shift - 1);
  if (rest > tie || (rest == tie && (h & 1))) h++;  /* a carry moves into the exponent */
  if (he > 0) h = ((uint64_t)he << 10) + (h - (1u << 10));  /* drop the hidden bit */
  return (uint16_t)(sign | h);
}

#ifdef __FLT16_MAX__
__extension__ typedef _Float16 host_half;
static host_half host_truncdfhf2(double x) {
  uint16_t bits = host_half_bits(x);
  host_half h;
  memcpy(&h, &bits, sizeof h);
  return h;
}
static host_half host_truncsfhf2(float x) { return host_truncdfhf2(x); }
static float host_extendhfsf2(host_half h) {
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  unsigned e = bits >> 10 & 31u, m = bits & 0x3ffu;
  float v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexpf((float)(m | 0x400u), (int)e - 25)
                                               : ldexpf((float)m, -24);
  return bits & 0x8000u ? -v : v;
}
/* float64 and float32 -> bfloat16, rounded once to nearest even. LLVM passes a bfloat in
 * an XMM register as it does a half, so the helpers return their bits as a _Float16. */
static host_half host_truncdfbf2(double x) {
  uint16_t bits;
  if (x != x) {
    bits = signbit(x) ? 0xffc0u : 0x7fc0u;   /* a quiet NaN */
  } else {
    float f = (float)type_round(x, &ty_bf16);   /* exact: 8 significant bits */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    bits = (uint16_t)(u >> 16);
  }
  host_half h;
  memcpy(&h, &bits, sizeof h);
  return h;
}
static host_half host_truncsfbf2(float x) { return host_truncdfbf2(x); }
#define HOST_HALF_FNS {"__truncdfhf2", (void (*)(void))host_truncdfhf2}, \
  {"__truncsfhf2", (void (*)(void))host_truncsfhf2}, \
  {"__extendhfsf2", (void (*)(void))host_extendhfsf2}, \
  {"__truncdfbf2", (void (*)(void))host_truncdfbf2}, \
  {"__truncsfbf2", (void (*)(void))host_truncsfbf2},
#else
#define HOST_HALF_FNS
#endif

#define HOST_FN(name) {#name, (void (*)(void))name}
#define HOST_FN_PAIR(name) HOST_FN(name), HOST_FN(name##f)

/* What LLVM's maths intrinsics and kcc's math.* calls become on the host. */
static const struct { const char *name; void (*fn)(void); } host_math[] = {
  HOST_FN_PAIR(sqrt), HOST_FN_PAIR(cbrt), HOST_FN_PAIR(exp), HOST_FN_PAIR(exp2),
  HOST_FN_PAIR(expm1), HOST_FN_PAIR(log), HOST_FN_PAIR(log2), HOST_FN_PAIR(log10),
  HOST_FN_PAIR(log1p), HOST_FN_PAIR(pow), HOST_FN_PAIR(fabs), HOST_FN_PAIR(floor),
  HOST_FN_PAIR(ceil), HOST_FN_PAIR(trunc), HOST_FN_PAIR(round), HOST_FN_PAIR(rint),
  HOST_FN_PAIR(nearbyint), HOST_FN_PAIR(roundeven), HOST_FN_PAIR(fmod),
  HOST_FN_PAIR(remainder), HOST_FN_PAIR(copysign), HOST_FN_PAIR(hypot),
  HOST_FN_PAIR(fmin), HOST_FN_PAIR(fmax), HOST_FN_PAIR(fma), HOST_FN_PAIR(ldexp),
  HOST_FN_PAIR(frexp), HOST_FN_PAIR(sin), HOST_FN_PAIR(cos), HOST_FN_PAIR(tan),
  HOST_FN_PAIR(sincos), HOST_FN_PAIR(asin), HOST_FN_PAIR(acos), HOST_FN_PAIR(atan),
  HOST_FN_PAIR(atan2), HOST_FN_PAIR(sinh), HOST_FN_PAIR(cosh), HOST_FN_PAIR(tanh),
  HOST_FN_PAIR(asinh), HOST_FN_PAIR(acosh), HOST_FN_PAIR(atanh), HOST_FN_PAIR(erf),
  HOST_FN_PAIR(erfc), HOST_FN_PAIR(tgamma),
  {"lgamma", (void (*)(void))host_lgamma}, {"lgammaf", (void (*)(void))host_lgammaf},
  {"__powisf2", (void (*)(void))host_powisf2}, {"__powidf2", (void (*)(void))host_powidf2},
  HOST_HALF_FNS
};

static void host_symbol(LLVMOrcLLJITRef jit, LLVMOrcCSymbolMapPair *sym, const char *name,
                        void (*fn)(void)) {
  sym->Name = LLVMOrcLLJITMangleAndIntern(jit, name);
  sym->Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)fn;
  sym->Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported |
                                LLVMJITSymbolGenericFlagsCallable;
  sym->Sym.Flags.TargetFlags = 0;
}

/* The maths above and libdevice's __nv_* functions (cuda.libdevice calls;
 * libdevice_host.c). */
static LLVMErrorRef host_define_math(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd) {
  enum { N = sizeof host_math / sizeof host_math[0] };
  size_t total = N + libdevice_host_nfns;
  LLVMOrcCSymbolMapPair *syms = malloc(total * sizeof *syms);
  if (!syms) return LLVMCreateStringError("out of memory for the JIT's symbols");
  for (size_t i = 0; i < N; i++) host_symbol(jit, &syms[i], host_math[i].name, host_math[i].fn);
  for (size_t i = 0; i < libdevice_host_nfns; i++)
    host_symbol(jit, &syms[N + i], libdevice_host_fns[i].name, libdevice_host_fns[i].fn);
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, total);
  free(syms);
  LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
  if (e) LLVMOrcDisposeMaterializationUnit(mu);
  return e;
}

/* Keep the first error the JIT session or LLVM reports (the session's default reporter
 * would print it; LLVM's default diagnostic handler would exit). */
static void host_keep_error(kcc_host_code *h, char *msg) {
  pthread_mutex_lock(&h->lock);
  if (!h->first_error && msg) {
    h->first_error = malloc(strlen(msg) + 1);
    if (h->first_error) strcpy(h->first_error, msg);
  }
  pthread_mutex_unlock(&h->lock);
}

static void host_on_session_error(void *p, LLVMErrorRef e) {
  char *msg = LLVMGetErrorMessage(e);
  host_keep_error(p, msg);
  LLVMDisposeErrorMessage(msg);
}

/* The JIT, linking code for the CPU asked for at opt_level: it is handed object code
 * (host_jit makes it), but LLJIT wants a target machine builder all the same. */
static LLVMErrorRef host_new_jit(int opt_level, const char *cpu, LLVMOrcLLJITRef *out,
                                 char **err) {
  LLVMTargetMachineRef tm = host_target_machine(opt_level, cpu, err);
  if (!tm) return NULL;
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
  return LLVMOrcCreateLLJIT(out, builder);  /* consumes the builder */
}

/* The name of some function m defines, to force compilation with (malloc'd). */
static char *host_some_definition(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || LLVMGetLinkage(f) != LLVMExternalLinkage) continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    char *copy = malloc(len + 1);
    if (copy) memcpy(copy, name, len + 1);
    return copy;
  }
  return NULL;
}

/* Give the JIT the maths functions and the process's symbols. */
static LLVMErrorRef host_add_symbols(LLVMOrcLLJITRef jit) {
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
  LLVMErrorRef e = host_define_math(jit, jd);
  if (e) return e;
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (!e) LLVMOrcJITDylibAddGenerator(jd, gen);
  return e;
}

/* Machine code for m, an object file in memory, made as LLJIT would make it (the same
 * target machine) but here, so that it can be kept (the runtime's disk cache, which
 * LLJIT's C API has no hook for). LLVM's errors are kept, as in host_run_pipeline. */
static int host_emit_object(LLVMModuleRef m, int opt_level, const char *cpu,
                            LLVMMemoryBufferRef *out, char **err) {
  *out = NULL;
  LLVMTargetMachineRef tm = host_target_machine(opt_level, cpu, err);
  if (!tm) return 1;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  host_diag_capture cap = {LLVMContextGetDiagnosticHandler(ctx),
                           LLVMContextGetDiagnosticContext(ctx), NULL};
  LLVMContextSetDiagnosticHandler(ctx, host_on_diagnostic, &cap);
  tgt_set_stage("generating machine code for the CPU back end", m);
  char *msg = NULL;
  LLVMBool bad = LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, out);
  tgt_set_stage(NULL, NULL);
  LLVMContextSetDiagnosticHandler(ctx, cap.saved, cap.saved_ctx);
  LLVMDisposeTargetMachine(tm);
  if (!bad && !cap.first_error) return 0;
  if (!bad) LLVMDisposeMemoryBuffer(*out);
  *out = NULL;
  if (bad && cap.first_error) LLVMDisposeMessage(cap.first_error);
  return tgt_fail_llvm(err, "internal error: code generation failed",
                       bad ? msg : cap.first_error);
}

/* Fail with the JIT's own first report when it has one (it names the symbol that was
 * not found, where the lookup's error only says the module failed). */
static int host_fail_jit(kcc_host_code *h, LLVMErrorRef e, char **err) {
  if (h->first_error) {
    LLVMConsumeError(e);
    tgt_fail(err, "JIT compilation failed: %s", h->first_error);
  } else {
    tgt_fail_error(err, "JIT compilation failed", e);
  }
  host_code_free(h);
  return 1;
}

/* A JIT holding object code obj (taken over), linked: the lookup of probe resolves its
 * symbols, so that errors (an unresolved symbol) are reported here. */
static int host_load(LLVMMemoryBufferRef obj, const host_object *extra, int nextra,
                     int opt_level, const char *cpu, const char *probe,
                     kcc_host_code **out, char **err) {
  kcc_host_code *h = calloc(1, sizeof *h);
  if (!h) {
    LLVMDisposeMemoryBuffer(obj);
    return tgt_fail(err, "out of memory");
  }
  pthread_mutex_init(&h->lock, NULL);
  LLVMErrorRef e = host_new_jit(opt_level, cpu, &h->jit, err);
  if (!e && h->jit) {
    LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(h->jit),
                                            host_on_session_error, h);
    e = host_add_symbols(h->jit);
  }
  for (int i = 0; i < nextra && !e && h->jit; i++)   /* link= files (host_link.c) */
    e = LLVMOrcLLJITAddObjectFile(h->jit, LLVMOrcLLJITGetMainJITDylib(h->jit),
                                  LLVMCreateMemoryBufferWithMemoryRangeCopy(
                                      extra[i].data, extra[i].len, "kcc link= file"));
  if (!e && h->jit) {
    e = LLVMOrcLLJITAddObjectFile(h->jit, LLVMOrcLLJITGetMainJITDylib(h->jit), obj);
    obj = NULL;  /* the JIT's now, added or not */
    LLVMOrcExecutorAddress addr;
    if (!e && probe) e = LLVMOrcLLJITLookup(h->jit, &addr, probe);
  }
  if (obj) LLVMDisposeMemoryBuffer(obj);
  if (e) return host_fail_jit(h, e, err);
  if (!h->jit) {
    host_code_free(h);
    return 1;  /* host_new_jit said why */
  }
  *out = h;
  return 0;
}

int host_cpu_usable(const char *cpu, char **err) {
  int level;
  return host_cpu_level(cpu, &level, err) || host_level_runs_here(level, err);
}

static int host_clamp_level(int opt_level) {
  return opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level;
}

int host_jit(LLVMContextRef ctx, LLVMModuleRef m, int opt_level, const char *cpu,
             host_object *keep, const host_object *extra, int nextra, kcc_host_code **out,
             char **err) {
  *out = NULL;
  opt_level = host_clamp_level(opt_level);
  char *probe = NULL;
  LLVMMemoryBufferRef obj = NULL;
  int rc = host_cpu_usable(cpu, err);
  if (!rc) {
    probe = host_some_definition(m);
    rc = host_emit_object(m, opt_level, cpu, &obj, err);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  if (!rc && keep) {
    keep->len = LLVMGetBufferSize(obj);
    keep->data = malloc(keep->len ? keep->len : 1);
    if (keep->data) memcpy(keep->data, LLVMGetBufferStart(obj), keep->len);
    else rc = tgt_fail(err, "out of memory");
  }
  if (!rc) rc = host_load(obj, extra, nextra, opt_level, cpu, probe, out, err);
  else if (obj) LLVMDisposeMemoryBuffer(obj);
  free(probe);
  return rc;
}

int host_jit_object(const void *data, size_t len, int opt_level, const char *cpu,
                    const char *probe, kcc_host_code **out, char **err) {
  *out = NULL;
  if (host_cpu_usable(cpu, err)) return 1;
  LLVMMemoryBufferRef obj =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, "kcc cached object");
  if (!obj) return tgt_fail(err, "out of memory");
  return host_load(obj, NULL, 0, host_clamp_level(opt_level), cpu, probe, out, err);
}

void *host_lookup(kcc_host_code *h, const char *symbol) {
  if (!h || !symbol) return NULL;
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(h->jit, &addr, symbol);
  if (e) {
    LLVMConsumeError(e);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

void host_code_free(kcc_host_code *h) {
  if (!h) return;
  if (h->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(h->jit);
    if (e) LLVMConsumeError(e);
  }
  pthread_mutex_destroy(&h->lock);
  free(h->first_error);
  free(h);
}
