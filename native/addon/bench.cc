// Benchmark support: a run-time algorithm override, and timing loops run in C++ so that the
// numbers are the collective's and not the JS call's (as OSU and IMB time theirs in C).
//
//   setAlgorithm(collective, name | null)   force `name` (an algorithm, 'native' or 'auto'/null = clear)
//   getAlgorithm(collective) -> name | null the override in force
//   takeFallback(collective) -> why | null  whether an overridden algorithm fell back to native since
//                                           the last call (then native ran: the timing is not its own)
//   benchCollective(comm, collective, bytes, options) -> {timesUs, iterations, slots, errors, windowUs, invalid}
//   pingPong(comm, a, b, bytes, iterations) -> the fastest half round-trip in microseconds, on every rank
//   pairedLink(comm, peer, bytes, iterations, burst) -> {halfRttUs, perMessageUs}, every pair at once
//   combineTime(bytes, rotateBytes, repetitions) -> seconds one reduce op takes on `bytes` of float
//                                           SUM (the model's γ; `bench --calibrate` fits it)
#include <sched.h>

#include <time.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "addon.h"
#include "algorithm_registry.h"
#include "config.h"
#include "engine.h"
#include "generated/collective_calls.h"
#include "hierarchy/hierarchy.h"
#include "override.h"
#include "reduce/reduction.h"

namespace topocoll::addon {
namespace {

Napi::Value SetAlgorithm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int algorithm = kAlgorithmAuto;
  if (!info[1].IsNull() && !info[1].IsUndefined()) {
    if (!info[1].IsString()) throwType(env, "setAlgorithm: name must be a string or null");
    std::string name = info[1].As<Napi::String>().Utf8Value();
    std::string error;
    if (name.empty() || !parseAlgorithmChoice(coll, name.c_str(), &algorithm, &error)) {
      // parseAlgorithmChoice names the environment variable; here the argument is the input.
      const auto& entry = collectiveEntry(coll);
      std::string valid = "auto, native";
      for (int i = 0; i < entry.algorithm_count; ++i) valid += std::string(", ") + entry.algorithms[i];
      throwType(env, "setAlgorithm: \"" + name + "\" is not an algorithm of " + entry.name + "; valid choices: " + valid + " (or null)");
    }
  }
  override_algorithm::setForced(coll, algorithm);
  return env.Undefined();
}

Napi::Value GetAlgorithm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Collective coll = collectiveArg(info[0]);
  int a = override_algorithm::forced(coll);
  if (a == kAlgorithmAuto) return env.Null();
  return Napi::String::New(env, a == kAlgorithmNative ? "native" : algorithmName(coll, a));
}

Napi::Value TakeFallback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string why = override_algorithm::takeFallback(collectiveArg(info[0]));
  if (why.empty()) return env.Null();
  return Napi::String::New(env, why);
}

// Send and receive pools kept between calls: first-touching tens of MiB per cell would cost
// more than the cell. Rotating through slots of the pools keeps small messages out of cache
// (IMB's -off_cache, OSU's buffer rotation).
std::vector<unsigned char>& sendPool() {
  static std::vector<unsigned char> pool;
  return pool;
}
std::vector<unsigned char>& recvPool() {
  static std::vector<unsigned char> pool;
  return pool;
}

int64_t roundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// The byte a rank puts at `offset` of what it sends to `dst` in check round `round`.
unsigned char pattern(int src, int dst, int64_t offset, int round) {
  return static_cast<unsigned char>(src * 131 + dst * 31 + offset * 7 + round * 13 + 1);
}

int64_t blocksOf(generated::Blocks blocks, int p) {
  return blocks == generated::Blocks::PerRank ? p : blocks == generated::Blocks::One ? 1 : 0;
}

// Bytes of a rank's send and receive buffers for `bytes` as the bench states them (one rank's
// block, or the message), from the collective's descriptor.
struct BufferBytes {
  int64_t send = 0, recv = 0;
};

BufferBytes bufferBytes(Collective coll, int p, int64_t bytes) {
  const auto& entry = collectiveEntry(coll);
  return {blocksOf(entry.send_blocks, p) * bytes, blocksOf(entry.recv_blocks, p) * bytes};
}

// A reduction's vector as the bench states it: floats summed, as a solver's or a training step's
// are (MPI_SUM on MPI_FLOAT, through the vectorised kernels); sizes that are not a whole number
// of floats combine bytes with MPI_BOR.
bool reducesFloats(Collective coll, int64_t bytes) { return collectiveEntry(coll).reducing && bytes % sizeof(float) == 0; }

// A call of `bytes` bytes on the pools' slots; a counts array gives every rank `bytes`.
struct BenchCall {
  CollectiveArgs args;
  std::vector<int> counts;
  BenchCall(Collective coll, MPI_Comm comm, int p, int64_t bytes, int root, unsigned char* send, unsigned char* recv) {
    const bool floats = reducesFloats(coll, bytes);
    const int64_t elements = floats ? bytes / static_cast<int64_t>(sizeof(float)) : bytes;
    args.sendbuf = send;
    args.recvbuf = recv;
    args.sendcount = args.count = elements;
    args.sendtype = args.type = floats ? MPI_FLOAT : MPI_BYTE;
    args.root = root;
    args.comm = comm;
    if (collectiveEntry(coll).reducing) args.op = floats ? MPI_SUM : MPI_BOR;
    counts.assign(p, static_cast<int>(elements));
    args.counts = counts.data();
  }
};

// One call through the engine; `native` calls the system MPI's own collective directly: the
// baseline of a benchmark must not carry the engine's per-call cost (selection, state lookup),
// which auto and our algorithms pay.
int runOnce(Collective coll, const CollectiveArgs& args) {
  if (override_algorithm::forced(coll) == kAlgorithmNative) return systemCall(coll, args);
  return engineCall(coll, args);
}

// One checked call: every byte received is the one its sender put there; a reduction's every
// element the SUM (floats of small integers: exact) or the OR (bytes) of every rank's. Returns
// mismatches.
int64_t checkedCall(Napi::Env env, Collective coll, MPI_Comm comm, int p, int rank, int64_t bytes, int root, int round,
                    unsigned char* send, unsigned char* recv) {
  const auto& entry = collectiveEntry(coll);
  const bool floats = reducesFloats(coll, bytes);
  // Elements of a block: bytes, or floats.
  const int64_t n = floats ? bytes / static_cast<int64_t>(sizeof(float)) : bytes;
  auto* send_floats = reinterpret_cast<float*>(send);
  auto* recv_floats = reinterpret_cast<float*>(recv);
  // Send block d goes to rank d when the send side holds p blocks (alltoall), to every rank when one.
  const bool personal = entry.send_blocks == generated::Blocks::PerRank;
  BufferBytes s = bufferBytes(coll, p, bytes);
  std::memset(recv, 0, s.recv);
  for (int64_t d = 0; d < blocksOf(entry.send_blocks, p); ++d) {
    for (int64_t i = 0; i < n; ++i) {
      const unsigned char v = pattern(rank, personal ? static_cast<int>(d) : 0, i, round);
      if (floats) send_floats[d * n + i] = v;
      else send[d * n + i] = v;
    }
  }
  // A rooted collective without a send buffer (bcast) takes the root's.
  if (entry.send_blocks == generated::Blocks::None && entry.rooted && rank == root)
    for (int64_t i = 0; i < bytes; ++i) recv[i] = pattern(root, 0, i, round);
  BenchCall call(coll, comm, p, bytes, root, send, recv);
  check(env, runOnce(coll, call.args), "benchCollective");
  if (entry.reducing && entry.rooted && rank != root) return 0;  // only the root receives
  // What element i of block b of recv holds: the block rank b sent here, the root's vector, or
  // the reduction of every rank's block for this rank.
  auto expected = [&](int64_t b, int64_t i) -> double {
    const int dst = personal ? rank : 0;
    if (entry.reducing) {
      double sum = 0;
      unsigned char any = 0;
      for (int r = 0; r < p; ++r) {
        sum += pattern(r, dst, i, round);
        any |= pattern(r, dst, i, round);
      }
      return floats ? sum : any;
    }
    if (entry.send_blocks == generated::Blocks::None) return pattern(root, 0, i, round);
    return pattern(static_cast<int>(b), dst, i, round);
  };
  int64_t wrong = 0;
  for (int64_t b = 0; b < blocksOf(entry.recv_blocks, p); ++b)
    for (int64_t i = 0; i < n; ++i) wrong += (floats ? static_cast<double>(recv_floats[b * n + i]) : recv[b * n + i]) != expected(b, i);
  return wrong;
}

// Window timing (ReproMPI's scheme, Hunold and Carpen-Amarie 2016): every call starts at a
// common instant of a clock synchronised with rank 0's, and takes until the last rank finishes.
// That is one call's latency from a common start, which `topocoll simulate` predicts; a loop of
// back-to-back calls measures something else (eager sends and shared-memory channels pipeline
// across calls).
struct GlobalClock {
  double offset = 0;  // rank 0's clock minus ours, seconds
  static double local() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  double now() const { return local() + offset; }
};

// Ranks on rank 0's kernel (its boot id: they read one CLOCK_MONOTONIC) keep offset 0. The others
// exchange timestamps with rank 0 in turn; the offset comes from the exchange with the shortest
// round trip (its midpoint is the best estimate of rank 0's reading).
GlobalClock synchroniseClock(Napi::Env env, MPI_Comm comm, int p, int rank) {
  constexpr int kExchanges = 16, kTag = 0x7c10;
  using Id = std::array<char, 40>;
  std::vector<Id> ids(p);
  Id mine{};
  std::strncpy(mine.data(), kernelBootId().c_str(), mine.size() - 1);
  check(env, PMPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, ids.data(), static_cast<int>(mine.size()), MPI_CHAR, comm),
        "benchCollective");
  GlobalClock clock;
  for (int r = 1; r < p; ++r) {
    if (ids[r][0] != 0 && ids[r] == ids[0]) continue;
    if (rank == 0) {
      for (int k = 0; k < kExchanges; ++k) {
        double ignored = 0;
        check(env, PMPI_Recv(&ignored, 1, MPI_DOUBLE, r, kTag, comm, MPI_STATUS_IGNORE), "benchCollective");
        double t = GlobalClock::local();
        check(env, PMPI_Send(&t, 1, MPI_DOUBLE, r, kTag, comm), "benchCollective");
      }
    } else if (rank == r) {
      double best = INFINITY;
      for (int k = 0; k < kExchanges; ++k) {
        double sent = GlobalClock::local(), theirs = 0;
        check(env, PMPI_Send(&sent, 1, MPI_DOUBLE, 0, kTag, comm), "benchCollective");
        check(env, PMPI_Recv(&theirs, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE), "benchCollective");
        double back = GlobalClock::local();
        if (back - sent < best) {
          best = back - sent;
          clock.offset = theirs - (sent + back) / 2;
        }
      }
    }
  }
  return clock;
}

// Waits as the engine's waits do (idleWhileWaiting): on an oversubscribed kernel it yields (a
// spinning rank would keep the ones sharing its CPU from starting on time); elsewhere it spins. A
// yield while the start was still 20 us off handed the core to whatever else was runnable for a
// time slice, and beside two CPU hogs every call of 20 attempts started late.
void waitUntil(const GlobalClock& clock, double start) {
  while (clock.now() < start) idleWhileWaiting();
}

struct WindowResult {
  double mean_us = 0;
  int64_t invalid = 0;  // calls some rank started late
};

// `iterations` calls, call i starting at start + i x window on the global clock. A call counts
// when no rank began it more than `tolerance` late (a rank descheduled, or the previous call
// overran its window); its time is the latest finish minus the common start.
template <typename Call>
WindowResult timeWindows(Napi::Env env, MPI_Comm comm, const GlobalClock& clock, int64_t iterations, double window, Call&& call) {
  double start = clock.now() + std::max(window, 1e-3);
  check(env, PMPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm), "benchCollective");
  // Per call: [0, n) time to finish, [n, 2n) lateness; one MAX reduction for both.
  std::vector<double> local(2 * iterations), slowest(2 * iterations);
  for (int64_t i = 0; i < iterations; ++i) {
    double at = start + static_cast<double>(i) * window;
    waitUntil(clock, at);
    double begun = clock.now();
    check(env, call(i), "benchCollective");
    local[i] = clock.now() - at;
    local[iterations + i] = begun - at;
  }
  check(env, PMPI_Allreduce(local.data(), slowest.data(), static_cast<int>(2 * iterations), MPI_DOUBLE, MPI_MAX, comm), "benchCollective");
  const double tolerance = std::max(1e-6, 0.02 * window);
  WindowResult r;
  double sum = 0;
  for (int64_t i = 0; i < iterations; ++i) {
    if (slowest[iterations + i] > tolerance) {
      ++r.invalid;
      continue;
    }
    sum += slowest[i];
  }
  int64_t valid = iterations - r.invalid;
  r.mean_us = valid > 0 ? sum / static_cast<double>(valid) * 1e6 : NAN;
  return r;
}

double numberOption(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined() || v.IsNull()) return fallback;
  return static_cast<double>(intArg(v, key, 0, INT64_MAX / 4));
}

// benchCollective(comm, collective, bytes, {iterations = 0 (adapt), targetUs = 20000,
//   minIterations = 3, maxIterations = 100000, warmup = 0 (adapt), repetitions = 5,
//   rotateBytes = 0, check = false, root = 0, window = false, windowUs = 0 (from the probe)}).
// Collective over comm: every rank passes the same arguments. Each repetition is, in
// microseconds, the slowest rank's mean time per call over `iterations` back-to-back calls
// after a barrier (as OSU reports); with `window`, the mean over the valid calls of one call's
// time from a common start (timeWindows), windows being 3x the probe's time per call + 20 us.
Napi::Value BenchCollective(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  Collective coll = collectiveArg(info[1]);
  int64_t bytes = intArg(info[2], "bytes", 0, INT_MAX);
  Napi::Object opt = info[3].IsObject() ? info[3].As<Napi::Object>() : Napi::Object::New(env);
  int64_t iterations = static_cast<int64_t>(numberOption(opt, "iterations", 0));
  double target_us = numberOption(opt, "targetUs", 20000);
  int64_t min_iterations = std::max<int64_t>(1, static_cast<int64_t>(numberOption(opt, "minIterations", 3)));
  int64_t max_iterations = std::max<int64_t>(min_iterations, static_cast<int64_t>(numberOption(opt, "maxIterations", 100000)));
  int64_t warmup = static_cast<int64_t>(numberOption(opt, "warmup", 0));
  int repetitions = static_cast<int>(std::max(1.0, numberOption(opt, "repetitions", 5)));
  int64_t rotate_bytes = static_cast<int64_t>(numberOption(opt, "rotateBytes", 0));
  bool check_data = opt.Get("check").ToBoolean();
  bool windowed = opt.Get("window").ToBoolean();
  double window_us = 0;
  if (Napi::Value v = opt.Get("windowUs"); v.IsNumber()) window_us = v.As<Napi::Number>().DoubleValue();
  if (!(window_us >= 0 && window_us < 1e9)) throwRange(env, "benchCollective: windowUs must be a number of microseconds in [0, 1e9)");
  const int p = commSizeOf(comm), rank = commRankOf(comm);
  int root = static_cast<int>(numberOption(opt, "root", 0));
  if (root >= p) throwRange(env, "benchCollective: root " + std::to_string(root) + " is not a rank of the communicator");
  if (collectiveEntry(coll).shape == Shape::None) bytes = 0;

  BufferBytes buffers = bufferBytes(coll, p, bytes);
  if (buffers.recv > (int64_t{1} << 34)) throwRange(env, "benchCollective: more than 16 GiB per call; use fewer ranks or smaller sizes");
  // Slots 64-byte aligned and disjoint; as many as fit in rotateBytes (at least one).
  int64_t send_stride = roundUp(std::max<int64_t>(buffers.send, 1), 64);
  int64_t recv_stride = roundUp(std::max<int64_t>(buffers.recv, 1), 64);
  int64_t slots = std::max<int64_t>(1, std::min(rotate_bytes / send_stride, rotate_bytes / recv_stride));
  if (buffers.send == 0) slots = std::max<int64_t>(1, rotate_bytes / recv_stride);
  if (buffers.recv == 0) slots = 1;
  auto& send_pool = sendPool();
  auto& recv_pool = recvPool();
  if (static_cast<int64_t>(send_pool.size()) < slots * send_stride) send_pool.resize(slots * send_stride, 0);
  if (static_cast<int64_t>(recv_pool.size()) < slots * recv_stride) recv_pool.resize(slots * recv_stride, 0);
  BenchCall bench_call(coll, comm, p, bytes, root, nullptr, nullptr);
  auto call = [&](int64_t i) {
    int64_t slot = i % slots;
    bench_call.args.sendbuf = send_pool.data() + slot * send_stride;
    bench_call.args.recvbuf = recv_pool.data() + slot * recv_stride;
    return runOnce(coll, bench_call.args);
  };

  int64_t errors = 0;
  if (check_data) {
    int64_t wrong = 0;
    int rounds = static_cast<int>(std::min<int64_t>(slots, 3));
    for (int r = 0; r < rounds; ++r) {
      int64_t slot = r * (slots / rounds);
      wrong += checkedCall(env, coll, comm, p, rank, bytes, root, r, send_pool.data() + slot * send_stride,
                           recv_pool.data() + slot * recv_stride);
    }
    check(env, PMPI_Allreduce(&wrong, &errors, 1, MPI_INT64_T, MPI_SUM, comm), "benchCollective");
  }

  // Iterations from a probe: double the count until the slowest rank spent a tenth of the
  // target; every rank sees the same maximum, so every rank runs the same number of calls.
  if (iterations <= 0 || (windowed && window_us <= 0)) {
    // The first call may create the node's shared segment and build the schedule: not a call's time.
    check(env, call(0), "benchCollective");
    double per_call = 0;
    for (int64_t k = 1;; k *= 2) {
      check(env, PMPI_Barrier(comm), "benchCollective");
      double t0 = PMPI_Wtime();
      for (int64_t i = 0; i < k; ++i) check(env, call(i), "benchCollective");
      double local = PMPI_Wtime() - t0, slowest = 0;
      check(env, PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "benchCollective");
      per_call = slowest / k * 1e6;
      if (slowest * 1e6 >= target_us / 10 || k >= max_iterations) break;
    }
    if (windowed && window_us <= 0) window_us = 3 * per_call + 20;
    if (iterations <= 0) {
      double each = windowed ? window_us : per_call;
      iterations = std::clamp<int64_t>(static_cast<int64_t>(target_us / std::max(each, 1e-3)), min_iterations, max_iterations);
    }
    if (warmup <= 0) warmup = std::max<int64_t>(1, iterations / 10);
  }
  for (int64_t i = 0; i < warmup; ++i) check(env, call(i), "benchCollective");

  auto times = Napi::Array::New(env, repetitions);
  int64_t invalid = 0;
  if (windowed) {
    GlobalClock clock = synchroniseClock(env, comm, p, rank);
    for (int r = 0; r < repetitions; ++r) {
      WindowResult w = timeWindows(env, comm, clock, iterations, window_us * 1e-6, call);
      invalid += w.invalid;
      times.Set(r, std::isnan(w.mean_us) ? env.Null() : Napi::Number::New(env, w.mean_us));
    }
  } else {
    for (int r = 0; r < repetitions; ++r) {
      check(env, PMPI_Barrier(comm), "benchCollective");
      double t0 = PMPI_Wtime();
      for (int64_t i = 0; i < iterations; ++i) check(env, call(i), "benchCollective");
      double local = (PMPI_Wtime() - t0) / static_cast<double>(iterations), slowest = 0;
      check(env, PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "benchCollective");
      times.Set(r, Napi::Number::New(env, slowest * 1e6));
    }
  }
  auto out = Napi::Object::New(env);
  out.Set("timesUs", times);
  out.Set("iterations", Napi::Number::New(env, static_cast<double>(iterations)));
  out.Set("slots", Napi::Number::New(env, static_cast<double>(slots)));
  out.Set("errors", Napi::Number::New(env, static_cast<double>(errors)));
  out.Set("windowUs", Napi::Number::New(env, window_us));
  out.Set("invalid", Napi::Number::New(env, static_cast<double>(invalid)));
  return out;
}

// `iterations` round trips of `count` bytes with `peer` (the leading side sends first), with PMPI
// (not through the engine). Seconds, all of them; `fastest`, where given, gets the fastest one's.
double roundTrips(Napi::Env env, MPI_Comm comm, int peer, bool leads, unsigned char* buffer, int count, int64_t iterations, const char* what,
                  double* fastest = nullptr) {
  const int tag = 7;
  const double t0 = PMPI_Wtime();
  double last = t0;
  for (int64_t i = 0; i < iterations; ++i) {
    if (leads) check(env, PMPI_Send(buffer, count, MPI_BYTE, peer, tag, comm), what);
    check(env, PMPI_Recv(buffer, count, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE), what);
    if (!leads) check(env, PMPI_Send(buffer, count, MPI_BYTE, peer, tag, comm), what);
    if (fastest) {
      const double now = PMPI_Wtime();
      *fastest = i == 0 ? now - last : std::min(*fastest, now - last);
      last = now;
    }
  }
  return PMPI_Wtime() - t0;
}

// pingPong(comm, a, b, bytes, iterations): ranks a and b bounce `bytes` back and forth with PMPI
// (not through the engine); every rank of comm gets a's fastest half round-trip in microseconds.
// The fastest, not the mean: beside CPU hogs every round trip's mean took a time slice (4 ms at
// 8 B and at 4 MiB alike, no bandwidth to fit), while some round trips still find both ranks
// running.
Napi::Value PingPong(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  const int p = commSizeOf(comm), rank = commRankOf(comm);
  int a = static_cast<int>(intArg(info[1], "a", 0, p - 1));
  int b = static_cast<int>(intArg(info[2], "b", 0, p - 1));
  if (a == b) throwRange(env, "pingPong: a and b must be different ranks");
  int64_t bytes = intArg(info[3], "bytes", 0, INT_MAX);
  int64_t iterations = intArg(info[4], "iterations", 1, 100000000);
  std::vector<unsigned char> buffer(std::max<int64_t>(bytes, 1));
  double half_rtt = 0;
  if (rank == a || rank == b) {
    int peer = rank == a ? b : a, count = static_cast<int>(bytes);
    roundTrips(env, comm, peer, rank == a, buffer.data(), count, std::min<int64_t>(iterations, 10), "pingPong");  // warm-up
    double fastest = 0;
    roundTrips(env, comm, peer, rank == a, buffer.data(), count, iterations, "pingPong", &fastest);
    half_rtt = fastest / 2 * 1e6;
  }
  check(env, PMPI_Bcast(&half_rtt, 1, MPI_DOUBLE, a, comm), "pingPong");
  return Napi::Number::New(env, half_rtt);
}

// combineTime(bytes, rotateBytes, repetitions): seconds the engine takes to combine `bytes` of
// float with MPI_SUM as a schedule's reduce op does (Reduction::combine: the vectorized kernel),
// both operands rotated over slots of rotateBytes as the benchmark rotates its buffers; the
// fastest of `repetitions` passes over the slots. On this rank alone; MPI must be initialized.
Napi::Value CombineTime(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t bytes = intArg(info[0], "bytes", sizeof(float), INT_MAX);
  if (bytes % sizeof(float) != 0) throwRange(env, "combineTime: bytes must be a multiple of 4 (floats)");
  const int64_t rotate = intArg(info[1], "rotateBytes", 0, int64_t{1} << 32);
  const int64_t repetitions = intArg(info[2], "repetitions", 1, 10000);
  Reduction reduction;
  check(env, Reduction::resolve(MPI_SUM, MPI_FLOAT, &reduction), "combineTime");
  if (!reduction.supported()) throwRange(env, "combineTime: the engine has no kernel for MPI_SUM on MPI_FLOAT");
  const int64_t slots = std::max<int64_t>(1, rotate / bytes), elements = bytes / sizeof(float);
  std::vector<float> src(slots * elements, 1.0f), dst(slots * elements, 0.5f);
  double best = INFINITY;
  for (int64_t rep = 0; rep < repetitions; ++rep) {
    double t0 = PMPI_Wtime();
    for (int64_t i = 0; i < slots; ++i) {
      const char* from = reinterpret_cast<const char*>(src.data() + i * elements);
      char* to = reinterpret_cast<char*>(dst.data() + i * elements);
      check(env, reduction.combine(from, to, elements, ReduceOrder::SrcFirst, MPI_COMM_SELF), "combineTime");
    }
    best = std::min(best, (PMPI_Wtime() - t0) / static_cast<double>(slots));
  }
  return Napi::Number::New(env, best);
}

// pairedLink(comm, peer, bytes, iterations, burst): every rank with a peer (-1: none; the
// pairing must be symmetric) measures its link to it at the same time as all the other pairs,
// so that the figures carry the load of a collective in which every rank communicates (ranks
// sharing CPUs, or a network port). Returns {halfRttUs, perMessageUs} for this rank: the half
// round-trip of `bytes`, and the time per message of a burst of `burst` of them posted at once
// (the lower rank sends, then waits for a 1-byte ack; the round trip taken off): LogGP's gap
// under load. Ranks without a peer return zeros.
Napi::Value PairedLink(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = commArg(info[0]);
  const int p = commSizeOf(comm), rank = commRankOf(comm);
  int peer = static_cast<int>(intArg(info[1], "peer", -1, p - 1));
  if (peer == rank) throwRange(env, "pairedLink: a rank cannot be its own peer");
  int count = static_cast<int>(intArg(info[2], "bytes", 0, 1 << 24));
  int64_t iterations = intArg(info[3], "iterations", 1, 1000000);
  int burst = static_cast<int>(intArg(info[4], "burst", 1, 4096));
  const size_t slot_bytes = static_cast<size_t>(std::max(count, 1));
  std::vector<unsigned char> buffer(slot_bytes * burst);
  std::vector<MPI_Request> reqs(burst);
  const int tag = 8;
  double half_rtt = 0, per_message = 0;
  check(env, PMPI_Barrier(comm), "pairedLink");
  if (peer >= 0) {
    const bool lead = rank < peer;
    unsigned char ack = 0;
    double rtt = roundTrips(env, comm, peer, lead, buffer.data(), count, iterations, "pairedLink") / static_cast<double>(iterations);
    half_rtt = rtt / 2 * 1e6;
    double t0 = PMPI_Wtime();
    for (int64_t i = 0; i < iterations; ++i) {
      for (int k = 0; k < burst; ++k) {
        unsigned char* slot = buffer.data() + slot_bytes * k;
        check(env, lead ? PMPI_Isend(slot, count, MPI_BYTE, peer, tag, comm, &reqs[k]) : PMPI_Irecv(slot, count, MPI_BYTE, peer, tag, comm, &reqs[k]),
              "pairedLink");
      }
      check(env, PMPI_Waitall(burst, reqs.data(), MPI_STATUSES_IGNORE), "pairedLink");
      if (lead) check(env, PMPI_Recv(&ack, 1, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE), "pairedLink");
      else check(env, PMPI_Send(&ack, 1, MPI_BYTE, peer, tag, comm), "pairedLink");
    }
    double each = (PMPI_Wtime() - t0) / static_cast<double>(iterations);
    per_message = std::max(0.0, each - rtt) / burst * 1e6;
  }
  check(env, PMPI_Barrier(comm), "pairedLink");
  auto out = Napi::Object::New(env);
  out.Set("halfRttUs", Napi::Number::New(env, half_rtt));
  out.Set("perMessageUs", Napi::Number::New(env, per_message));
  return out;
}

}  // namespace

void initBench(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"setAlgorithm", SetAlgorithm},
                              {"getAlgorithm", GetAlgorithm},
                              {"takeFallback", TakeFallback},
                              {"benchCollective", BenchCollective},
                              {"pingPong", PingPong},
                              {"pairedLink", PairedLink},
                              {"combineTime", CombineTime}});
}

}  // namespace topocoll::addon
