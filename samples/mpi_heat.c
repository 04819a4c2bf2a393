/*
 * mpi_heat.c — the 2-D heat equation (Jacobi iteration) on a grid split by rows across
 * MPI ranks, one kcc context per rank (docs/distributed.md).
 *
 * The grid has ny interior rows and nx columns, plus a fixed boundary: the row above
 * (1.0), the row below (0.0), the first column (0.5) and the last (0.0). Rank r owns a
 * slab of consecutive interior rows with one ghost row above and one below. Every step
 * each rank swaps its edge rows with its neighbours' (MPI_Sendrecv, up then down), then
 * runs mpi_heat.k's jacobi on its slab. The update sums in one fixed order, so the
 * result does not depend on the number of ranks: 1, 2 or 4 ranks give the same bits.
 *
 * Each rank opens its own context: with GPUs, CUDA device (rank on its node) modulo
 * (GPUs of the node); with KC_DEVICE=cpu, the CPU back end with --cpu-threads threads
 * (1 by default: one rank per core). Halo rows go to MPI straight from device memory
 * when Open MPI is CUDA-aware (MPIX_Query_cuda_support), else through host buffers.
 *
 *   usage: mpirun -np P mpi_heat [options] path/to/mpi_heat.k
 *     --ny N             interior rows of the whole grid (default 64), split across ranks
 *     --rows-per-rank N  instead: N rows per rank (weak scaling), ny = N * P
 *     --nx N             columns (default 96)
 *     --steps N          Jacobi steps (default 300)
 *     --cpu-threads N    CPU back end threads per rank (default 1)
 *     --out FILE         rank 0 writes the interior, ny x nx float64 in C order, to FILE
 *     --check            rank 0 recomputes the grid with a plain C loop, compares bits
 *     --time             rank 0 prints time per step and the share spent on halos
 *
 * Exit status: 0 when everything ran (and --check matched), 1 otherwise.
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>   /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

typedef struct options {
  long ny, nx, rows_per_rank, steps;
  int cpu_threads, check, time;
  const char *out, *path;
} options;

/* A rank's view of the grid: its slab and the row views the halo exchange moves. */
typedef struct slab {
  kc_array *a;                    /* (rows + 2) x nx: ghost, rows, ghost */
  kc_array *first, *last;         /* its first and last own rows (sent) */
  kc_array *above, *below;        /* the ghost rows (received) */
} slab;

typedef struct rank_state {
  int rank, size, up, down;       /* up/down: neighbours, MPI_PROC_NULL at the edges */
  long rows, row0;                /* own interior rows; global index of ghost row above */
  int cuda_aware;                 /* hand device rows to MPI directly */
  kc_context *ctx;
  kc_module *mod;
  kc_kernel *jacobi;
  slab s[2];
  /* staging buffers for an MPI that cannot read device memory: one page-locked block
     (kc_host_alloc), so the copies to and from the device run at full speed */
  double *staging, *send_up, *send_down, *recv_up, *recv_down;
  double comm_s;                  /* seconds spent exchanging halos */
} rank_state;

static void die(rank_state *st, const char *what, kc_status s) {
  fprintf(stderr, "mpi_heat: rank %d: %s failed: %s: %s\n", st->rank, what,
          kc_status_name(s), st->ctx ? kc_last_error(st->ctx) : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#define KC(st, what, call)                    \
  do {                                        \
    kc_status s_ = (call);                    \
    if (s_ != KC_OK) die((st), (what), s_);   \
  } while (0)

/* ---- the grid -------------------------------------------------------------------- */
/* The starting value of global row gi (0 and ny+1 are the boundary), column j: fixed
 * edges, and an uneven interior so that halos matter from the first step. */
static double initial(long gi, long j, long ny, long nx) {
  if (gi == 0) return 1.0;
  if (gi == ny + 1) return 0.0;
  if (j == 0) return 0.5;
  if (j == nx - 1) return 0.0;
  return (double)((gi * 31 + j * 17) % 97) / 97.0;
}

/* The same step as mpi_heat.k's jacobi, on the whole (ny + 2) x nx grid in plain C. */
static void c_step(const double *u, double *v, long rows, long nx) {
  for (long i = 1; i < rows - 1; i++)
    for (long j = 1; j < nx - 1; j++)
      v[i * nx + j] = 0.25 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] +
                              u[i * nx + j + 1]);
}

/* ---- setup ----------------------------------------------------------------------- */
/* This rank's index among the ranks of its node: the GPU it takes is that modulo the
 * node's GPUs (what `srun --gpus-per-task` or a rankfile would otherwise arrange). */
static int node_rank(void) {
  MPI_Comm node;
  int r = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

static void open_device(rank_state *st, const options *o) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.cpu_threads = o->cpu_threads;
  int gpus = 0;
  if (kc_cuda_device_count(&gpus) == KC_OK && gpus > 0) cfg.cuda_device = node_rank() % gpus;
  KC(st, "kc_context_new", kc_context_new(&cfg, &st->ctx));
  KC(st, "compile", kc_compile_file(st->ctx, o->path, NULL, &st->mod));
  KC(st, "get kernel", kc_module_get_kernel(st->mod, "jacobi", &st->jacobi));
}

/* Whether MPI can read and write device memory itself. Only with CUDA, and only when
 * Open MPI says so at run time (built with CUDA and the CUDA path enabled). */
static int mpi_reads_device_memory(const rank_state *st) {
  if (kc_context_device(st->ctx) != KC_DEVICE_CUDA) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

/* A row's device address for a CUDA-aware MPI (kc_array_device_ptr: the CUdeviceptr,
 * which such an MPI reads directly), or NULL. */
static void *row_address(kc_array *row) {
  uint64_t p = 0;
  return kc_array_device_ptr(row, &p) == KC_OK ? (void *)(uintptr_t)p : NULL;
}

static void make_slab(rank_state *st, slab *sl, const options *o, const double *init) {
  int64_t shape[2] = {st->rows + 2, o->nx};
  size_t bytes = (size_t)shape[0] * (size_t)o->nx * sizeof(double);
  KC(st, "array", kc_array_from_host(st->ctx, KC_FLOAT64, 2, shape, init, bytes, &sl->a));
  KC(st, "view", kc_array_view(sl->a, 0, 1, &sl->above));
  KC(st, "view", kc_array_view(sl->a, 1, 2, &sl->first));
  KC(st, "view", kc_array_view(sl->a, st->rows, st->rows + 1, &sl->last));
  KC(st, "view", kc_array_view(sl->a, st->rows + 1, st->rows + 2, &sl->below));
}

static void free_slab(slab *sl) {
  kc_array_free(sl->above);
  kc_array_free(sl->first);
  kc_array_free(sl->last);
  kc_array_free(sl->below);
  kc_array_free(sl->a);
}

/* Split ny rows as evenly as possible: the first ny % size ranks take one more. */
static void split_rows(rank_state *st, long ny) {
  long base = ny / st->size, extra = ny % st->size;
  st->rows = base + (st->rank < extra);
  st->row0 = st->rank * base + (st->rank < extra ? st->rank : extra);
  st->up = st->rank > 0 ? st->rank - 1 : MPI_PROC_NULL;
  st->down = st->rank + 1 < st->size ? st->rank + 1 : MPI_PROC_NULL;
}

static void setup(rank_state *st, const options *o) {
  split_rows(st, o->ny);
  open_device(st, o);
  size_t n = (size_t)(st->rows + 2) * (size_t)o->nx;
  double *init = malloc(n * sizeof *init);
  if (!init) die(st, "malloc", KC_ERR_NOMEM);
  KC(st, "kc_host_alloc", kc_host_alloc(st->ctx, 4 * (size_t)o->nx * sizeof(double),
                                        (void **)&st->staging));
  st->send_up = st->staging;
  st->send_down = st->send_up + o->nx;
  st->recv_up = st->send_down + o->nx;
  st->recv_down = st->recv_up + o->nx;
  for (long k = 0; k < st->rows + 2; k++)
    for (long j = 0; j < o->nx; j++) init[k * o->nx + j] = initial(st->row0 + k, j, o->ny, o->nx);
  make_slab(st, &st->s[0], o, init);
  make_slab(st, &st->s[1], o, init);   /* v starts with the same boundary */
  free(init);
  st->cuda_aware = mpi_reads_device_memory(st) && row_address(st->s[0].first) != NULL;
}

/* ---- the step --------------------------------------------------------------------- */
/* Swap edge rows with both neighbours: my first row up, the lower neighbour's first row
 * into my ghost below; then my last row down, the upper one's last row into my ghost
 * above. At the edges MPI_PROC_NULL makes a half a no-op, and the ghost row keeps the
 * boundary. */
static void exchange_staged(rank_state *st, slab *sl, int nx) {
  if (st->up != MPI_PROC_NULL)
    KC(st, "copy to host", kc_array_to_host(sl->first, st->send_up, (size_t)nx * sizeof(double)));
  if (st->down != MPI_PROC_NULL)
    KC(st, "copy to host", kc_array_to_host(sl->last, st->send_down, (size_t)nx * sizeof(double)));
  MPI_Sendrecv(st->send_up, nx, MPI_DOUBLE, st->up, 0, st->recv_down, nx, MPI_DOUBLE,
               st->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(st->send_down, nx, MPI_DOUBLE, st->down, 1, st->recv_up, nx, MPI_DOUBLE,
               st->up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (st->down != MPI_PROC_NULL)
    KC(st, "copy from host", kc_array_copy_from_host(sl->below, st->recv_down, (size_t)nx * sizeof(double)));
  if (st->up != MPI_PROC_NULL)
    KC(st, "copy from host", kc_array_copy_from_host(sl->above, st->recv_up, (size_t)nx * sizeof(double)));
}

/* The same, MPI reading and writing the device rows (the kernel is finished: the caller
 * synchronised). */
static void exchange_direct(rank_state *st, slab *sl, int nx) {
  MPI_Sendrecv(row_address(sl->first), nx, MPI_DOUBLE, st->up, 0, row_address(sl->below), nx,
               MPI_DOUBLE, st->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(row_address(sl->last), nx, MPI_DOUBLE, st->down, 1, row_address(sl->above), nx,
               MPI_DOUBLE, st->up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void run_steps(rank_state *st, const options *o, int *cur) {
  kc_dim3 block = kc_dim2(32, 8);
  kc_dim3 grid = kc_dim2((unsigned)((o->nx + 31) / 32), (unsigned)((st->rows + 2 + 7) / 8));
  for (long step = 0; step < o->steps; step++) {
    slab *u = &st->s[*cur], *v = &st->s[1 - *cur];
    KC(st, "synchronize", kc_synchronize(st->ctx));  /* the last step's kernel: compute */
    double t0 = MPI_Wtime();
    if (st->cuda_aware) exchange_direct(st, u, (int)o->nx);
    else exchange_staged(st, u, (int)o->nx);
    st->comm_s += MPI_Wtime() - t0;
    kc_arg args[] = {kc_arg_array(u->a), kc_arg_array(v->a)};
    KC(st, "launch", kc_launch(st->jacobi, grid, block, 0, NULL, args, 2));
    *cur = 1 - *cur;
  }
  KC(st, "synchronize", kc_synchronize(st->ctx));
}

/* ---- results ---------------------------------------------------------------------- */
/* Rank 0 gets every rank's rows, in order: the ny x nx interior. */
static double *gather(rank_state *st, const options *o, slab *sl) {
  size_t mine = (size_t)st->rows * (size_t)o->nx;
  double *rows = malloc((mine ? mine : 1) * sizeof *rows), *all = NULL;
  int *counts = NULL, *displs = NULL;
  if (!rows) die(st, "malloc", KC_ERR_NOMEM);
  kc_array *interior = NULL;
  KC(st, "view", kc_array_view(sl->a, 1, st->rows + 1, &interior));
  KC(st, "copy to host", kc_array_to_host(interior, rows, mine * sizeof *rows));
  kc_array_free(interior);
  if (st->rank == 0) {
    all = malloc((size_t)o->ny * (size_t)o->nx * sizeof *all);
    counts = malloc((size_t)st->size * sizeof *counts);
    displs = malloc((size_t)st->size * sizeof *displs);
    if (!all || !counts || !displs) die(st, "malloc", KC_ERR_NOMEM);
    rank_state other = *st;
    for (int r = 0; r < st->size; r++) {
      other.rank = r;
      split_rows(&other, o->ny);
      counts[r] = (int)(other.rows * o->nx);
      displs[r] = (int)(other.row0 * o->nx);
    }
  }
  MPI_Gatherv(rows, (int)mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free(rows), free(counts), free(displs);
  return all;
}

/* The whole grid stepped in plain C; 1 when its interior has exactly the bits of got. */
static int check(const options *o, const double *got) {
  long rows = o->ny + 2;
  size_t n = (size_t)rows * (size_t)o->nx;
  double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
  if (!u || !v) return 0;
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < o->nx; j++) u[i * o->nx + j] = v[i * o->nx + j] = initial(i, j, o->ny, o->nx);
  for (long s = 0; s < o->steps; s++) {
    c_step(u, v, rows, o->nx);
    double *t = u;
    u = v, v = t;
  }
  int same = memcmp(u + o->nx, got, (size_t)o->ny * (size_t)o->nx * sizeof *got) == 0;
  free(u), free(v);
  return same;
}

static int write_grid(const char *path, const double *g, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(g, sizeof *g, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* Rank 0: the slowest rank's time per step, and the share of all ranks' time that went
 * to halo exchanges (staging copies and MPI_Sendrecv, waiting for a neighbour included). */
static void report_time(rank_state *st, const options *o, double total_s) {
  double slowest = 0, comm_sum = 0, total_sum = 0;
  MPI_Reduce(&total_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&st->comm_s, &comm_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&total_s, &total_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (st->rank != 0) return;
  printf("mpi_heat: time ranks=%d ny=%ld nx=%ld steps=%ld device=%s ms_per_step=%.4f "
         "comm_share=%.3f halo=%s\n",
         st->size, o->ny, o->nx, o->steps,
         kc_context_device(st->ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu",
         1e3 * slowest / (double)o->steps, total_sum > 0 ? comm_sum / total_sum : 0.0,
         st->cuda_aware ? "device" : "staged");
}

/* ---- main ------------------------------------------------------------------------- */
static int parse(int argc, char **argv, options *o) {
  *o = (options){.ny = 64, .nx = 96, .steps = 300, .cpu_threads = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--check") == 0) o->check = 1;
    else if (strcmp(a, "--time") == 0) o->time = 1;
    else if (strcmp(a, "--out") == 0 && more) o->out = argv[++i];
    else if (strcmp(a, "--ny") == 0 && more) o->ny = atol(argv[++i]);
    else if (strcmp(a, "--nx") == 0 && more) o->nx = atol(argv[++i]);
    else if (strcmp(a, "--rows-per-rank") == 0 && more) o->rows_per_rank = atol(argv[++i]);
    else if (strcmp(a, "--steps") == 0 && more) o->steps = atol(argv[++i]);
    else if (strcmp(a, "--cpu-threads") == 0 && more) o->cpu_threads = atoi(argv[++i]);
    else if (a[0] != '-' && !o->path) o->path = a;
    else return 0;
  }
  if (!o->path) o->path = "samples/mpi_heat.k";
  return o->nx >= 3 && o->steps >= 0 && o->cpu_threads >= 0 && o->rows_per_rank >= 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank_state st = {0};
  options o;
  MPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &st.size);
  int ok = parse(argc, argv, &o);
  if (ok && o.rows_per_rank) o.ny = o.rows_per_rank * st.size;
  /* every rank needs a row; MPI_Gatherv counts are ints */
  if (!ok || o.ny < st.size || o.ny * o.nx > 1L << 30) {
    if (st.rank == 0)
      fprintf(stderr, "usage: mpirun -np P mpi_heat [--ny N | --rows-per-rank N] [--nx N] "
                      "[--steps N] [--cpu-threads N] [--out FILE] [--check] [--time] "
                      "mpi_heat.k\n(ny >= P, nx >= 3, ny * nx <= 2^30)\n");
    MPI_Finalize();
    return 1;
  }
  setup(&st, &o);
  int cur = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  run_steps(&st, &o, &cur);
  double total = MPI_Wtime() - t0;
  if (o.time) report_time(&st, &o, total);
  double *grid = gather(&st, &o, &st.s[cur]);
  int status = 0;
  if (st.rank == 0) {
    size_t n = (size_t)o.ny * (size_t)o.nx;
    if (o.out && !write_grid(o.out, grid, n)) {
      fprintf(stderr, "mpi_heat: cannot write %s\n", o.out);
      status = 1;
    }
    if (o.check) {
      int same = check(&o, grid);
      printf("mpi_heat: %s on %d rank%s: %ld x %ld grid, %ld steps %s the C loop%s\n",
             same ? "OK" : "FAIL", st.size, st.size == 1 ? "" : "s", o.ny, o.nx, o.steps,
             same ? "match" : "differ from", same ? " bit for bit" : "");
      if (!same) status = 1;
    }
  }
  free(grid);
  free_slab(&st.s[0]);
  free_slab(&st.s[1]);
  kc_host_free(st.ctx, st.staging);
  kc_module_free(st.mod);
  kc_context_free(st.ctx);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
