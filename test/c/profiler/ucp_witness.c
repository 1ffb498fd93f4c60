/* A witness of MPICH's messages over UCX, for a proof that MPICH ran the algorithm a tuning file
 * names (test/mpi/tune-export.test.ts): MPICH 4.0 prints nothing of the algorithms it selects,
 * and its collectives send with UCX's ucp_tag_send_nbx through the PLT, where a preloaded
 * definition sees every message. Under MPIR_CVAR_NOLOCAL=1 every message goes through UCX.
 * Endpoints are numbered in the order MPICH creates them (one per rank, at MPI_Init); between
 * witness_record(rank) and witness_record(-1) (called by the program) each send prints
 *   ucp-witness rank R ep E bytes N tag T
 * on stderr. No UCX header: the handles are pointers, statuses ints, tags 64-bit (UCX's ABI). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_EPS 1024

static void *g_eps[MAX_EPS];
static int g_count;
static int g_rank = -1;

void witness_record(int rank) { g_rank = rank; }

int ucp_ep_create(void *worker, const void *params, void **ep) {
  static int (*real)(void *, const void *, void **);
  if (!real) real = (int (*)(void *, const void *, void **))dlsym(RTLD_NEXT, "ucp_ep_create");
  int status = real(worker, params, ep);
  if (status == 0 && g_count < MAX_EPS) g_eps[g_count++] = *ep;
  return status;
}

void *ucp_tag_send_nbx(void *ep, const void *buffer, size_t count, uint64_t tag, const void *param) {
  static void *(*real)(void *, const void *, size_t, uint64_t, const void *);
  if (!real) real = (void *(*)(void *, const void *, size_t, uint64_t, const void *))dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
  if (g_rank >= 0) {
    int e = 0;
    while (e < g_count && g_eps[e] != ep) e++;
    fprintf(stderr, "ucp-witness rank %d ep %d bytes %zu tag %llx\n", g_rank, e < g_count ? e : -1, count, (unsigned long long)tag);
  }
  return real(ep, buffer, count, tag, param);
}
