#include "mapping/remap/remapped_allgather.h"

#include <string>
#include <vector>

#include "algorithm_registry.h"
#include "hierarchy/hierarchy.h"
#include "mapping/remap/allgather_mapping.h"

namespace topocoll::mapping {

namespace {

// Name of the base of a remapped algorithm: the name without its suffix, or "".
std::string nominalBase(const std::string& name) {
  for (const char* suffix : {"_exch", "_reorder"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) return name.substr(0, name.size() - s.size());
  }
  return "";
}

const char* effectiveBase(const std::string& nominal) {
  const int index = algorithmIndex(Collective::Allgather, nominal);
  if (index >= 0 && findBuilder(Collective::Allgather, index)) return algorithmName(Collective::Allgather, index);
  return "ring";
}

// The algorithm run under pi. Not copyable: `mapping` may point into `computed`.
struct Base {
  Base() = default;
  Base(const Base&) = delete;
  Base& operator=(const Base&) = delete;
  const char* name = nullptr;
  ScheduleBuilder build = nullptr;
  std::string note;                       // fallbacks, for `explain`
  const RankMapping* mapping = nullptr;   // the engine's (cached per communicator) or `computed`
  RankMapping computed;
};

// The base, its pi, and what `explain` should say about fallbacks.
void resolveBase(const BuildParams& bp, const char* self, Base* out) {
  const std::string nominal = nominalBase(self);
  out->name = effectiveBase(nominal);
  out->build = findBuilder(Collective::Allgather, algorithmIndex(Collective::Allgather, out->name));
  if (nominal != out->name) out->note = nominal + " has no builder in this build: " + self + " remaps " + out->name;
  const bool power_of_two = (bp.p & (bp.p - 1)) == 0;
  if (std::string(out->name) == "recursive_doubling" && !power_of_two)
    out->note += std::string(out->note.empty() ? "" : "; ") + "p = " + std::to_string(bp.p) + " is not a power of two: " + self +
                 " remaps recursive doubling's variant for other p";
  if (bp.mapping && static_cast<int>(bp.mapping->pi.size()) == bp.p) {
    out->mapping = bp.mapping;
    return;
  }
  // No cached mapping (tools, tests): the same deterministic computation the engine caches.
  out->computed = allgatherRankMapping(out->name, nodeOfSlot(bp.hierarchy, bp.p));
  out->mapping = &out->computed;
}

bool isIdentity(const RankMapping& m) {
  for (size_t v = 0; v < m.pi.size(); ++v)
    if (m.pi[v] != static_cast<int>(v)) return false;
  return true;
}

void appendNote(Schedule* s, const std::string& note) {
  if (note.empty()) return;
  s->note = s->note.empty() ? note : note + "; " + s->note;
}

// Appends the base's rounds from `first` on with peers w -> pi[w] and spans passed through `buffers`.
template <typename MapSpan>
void appendMapped(const Schedule& base, const RankMapping& m, MapSpan buffers, Schedule* out, size_t first = 0) {
  for (size_t i = first; i < base.rounds.size(); ++i) {
    const Round& round = base.rounds[i];
    Round& mapped = out->newRound();
    mapped.ops.reserve(round.ops.size());
    for (Op op : round.ops) {
      if (op.kind == OpKind::Send || op.kind == OpKind::Recv) op.peer = m.pi[op.peer];
      op.src = buffers(op.src);
      op.dst = buffers(op.dst);
      mapped.ops.push_back(op);
    }
  }
}

// Resolves the base algorithm and its mapping. Under the identity mapping the base's own
// schedule is the answer: *plain, and true.
bool resolveUnlessIdentity(const BuildParams& bp, const char* self, Base* base, Schedule* plain) {
  resolveBase(bp, self, base);
  if (!isIdentity(*base->mapping)) return false;
  *plain = base->build(bp);
  appendNote(plain, base->note);
  return true;
}

// Whether the base's first step, on every vertex, sends only the vertex's own block and receives
// only blocks their vertices send in their own first step: then each such send can leave from the
// block's owner instead. True of Bruck, and of recursive doubling on powers of two (not of its
// fold-in for other p, whose low ranks receive their partner's second step first).
bool firstStepMovesOwnBlocks(const char* base, int p) {
  const std::string name(base);
  return name == "bruck" || (name == "recursive_doubling" && (p & (p - 1)) == 0);
}

// The swap and the base's first step as one round: rank r sends its block to pi[r] and to the
// ranks of the vertices vertex r's first step sends it to; vertex v receives its first step's
// blocks from their owners. A block this rank would send to itself is copied. One round less
// than swapping first, and no more bytes between nodes on the emulated cluster (26 blocks
// against 28 for Bruck on 4 nodes x 2, 24 against 28 for recursive doubling); over 300 random
// layouts it sent fewer in a third, more (by under 1%) in 6%.
void addSwapWithFirstStep(const BuildParams& bp, const Base& base, const Schedule& inner, BlockSpan mine, Schedule* s) {
  const RankMapping& m = *base.mapping;
  const int r = bp.rank, v = m.pi_inv[r];
  const int64_t u = s->units_per_block;
  BuildParams as_owner = bp;  // rank r as vertex r
  as_owner.in_place = true;
  const Schedule owner = v == r ? Schedule() : base.build(as_owner);
  const Round& owner_first = (v == r ? inner : owner).rounds.front();

  Round& first = s->newRound();
  // Copies run in op order: the ones that put blocks in place come before the base's.
  if (v == r && !bp.in_place) addCopy(first, mine, span(BufferId::Recv, r * u, u));
  for (const Op& op : inner.rounds.front().ops)
    if (op.kind == OpKind::Recv && op.peer == r) addCopy(first, mine, op.dst);
  if (v != r) {
    addSend(first, m.pi[r], mine);
    addRecv(first, v, span(BufferId::Recv, v * u, u));
  }
  for (const Op& op : owner_first.ops)
    if (op.kind == OpKind::Send && m.pi[op.peer] != r) addSend(first, m.pi[op.peer], mine);
  for (const Op& op : inner.rounds.front().ops) {
    if (op.kind == OpKind::Send || (op.kind == OpKind::Recv && op.peer == r)) continue;
    first.ops.push_back(op);  // a receive from vertex x is from rank x, the owner of block x
  }
}

}  // namespace

const char* remappedAllgatherBase(int algorithm) {
  // Asked on every allgather call: names are parsed once, not per call.
  static const std::vector<const char*> bases = [] {
    std::vector<const char*> out(collectiveEntry(Collective::Allgather).algorithm_count, nullptr);
    for (size_t a = 0; a < out.size(); ++a) {
      const std::string nominal = nominalBase(algorithmName(Collective::Allgather, static_cast<int>(a)));
      if (!nominal.empty()) out[a] = effectiveBase(nominal);
    }
    return out;
  }();
  return algorithm >= 0 && algorithm < static_cast<int>(bases.size()) ? bases[algorithm] : nullptr;
}

Schedule buildExchangedAllgather(const BuildParams& bp, const char* self) {
  Base base;
  Schedule plain;
  if (resolveUnlessIdentity(bp, self, &base, &plain)) return plain;
  const RankMapping& m = *base.mapping;
  const int r = bp.rank, v = m.pi_inv[r];
  BuildParams as_vertex = bp;
  as_vertex.rank = v;
  as_vertex.in_place = true;  // the swap leaves rank v's block in slot v
  const Schedule inner = base.build(as_vertex);
  const int64_t u = inner.units_per_block > 0 ? inner.units_per_block : 1;

  Schedule s;
  s.units_per_block = u;
  s.tmp_blocks = inner.tmp_blocks;
  s.shm = inner.shm;
  const BlockSpan mine = bp.in_place ? span(BufferId::Recv, r * u, u) : span(BufferId::Send, 0, u);
  size_t first_mapped = 0;
  if (!inner.rounds.empty() && firstStepMovesOwnBlocks(base.name, bp.p)) {
    addSwapWithFirstStep(bp, base, inner, mine, &s);
    first_mapped = 1;
  } else if (v != r) {
    Round& swap = s.newRound();
    addSend(swap, m.pi[r], mine);                    // to the rank that runs vertex r
    addRecv(swap, v, span(BufferId::Recv, v * u, u));  // rank v's block, from rank v (pi[v] == r)
  } else if (!bp.in_place) {
    addCopy(s.newRound(), mine, span(BufferId::Recv, r * u, u));
  }
  appendMapped(inner, m, [](BlockSpan b) { return b; }, &s, first_mapped);
  s.note = inner.note;
  appendNote(&s, base.note);
  return s;
}

Schedule buildReorderedAllgather(const BuildParams& bp, const char* self) {
  Base base;
  Schedule plain;
  if (resolveUnlessIdentity(bp, self, &base, &plain)) return plain;
  const RankMapping& m = *base.mapping;
  const int p = bp.p, r = bp.rank, v = m.pi_inv[r];
  BuildParams as_vertex = bp;
  as_vertex.rank = v;
  as_vertex.in_place = false;  // the base reads this rank's block from Send (or Recv[r] below)
  const Schedule inner = base.build(as_vertex);
  const int64_t u = inner.units_per_block > 0 ? inner.units_per_block : 1;

  Schedule s;
  s.units_per_block = u;
  s.shm = inner.shm;
  // Scratch: blocks 0..p-1 hold the base's result in vertex order, then the base's own scratch.
  s.tmp_blocks = p + inner.tmp_blocks;
  const bool in_place = bp.in_place;
  appendMapped(inner, m,
               [&](BlockSpan b) {
                 switch (b.buf) {
                   case BufferId::Send: return in_place ? span(BufferId::Recv, r * u + b.first, b.count) : b;
                   case BufferId::Recv: return span(BufferId::Tmp, b.first, b.count);
                   case BufferId::Tmp: return span(BufferId::Tmp, p * u + b.first, b.count);
                   default: return b;
                 }
               },
               &s);
  // Vertex w's block is rank pi[w]'s: copy runs of consecutive vertices on consecutive ranks.
  Round& reorder = s.newRound();
  for (int w = 0; w < p;) {
    int len = 1;
    while (w + len < p && m.pi[w + len] == m.pi[w] + len && !(in_place && w + len == v)) ++len;
    if (in_place && w == v) {  // this rank's own block already sits in Recv[r]
      ++w;
      continue;
    }
    addCopy(reorder, span(BufferId::Tmp, w * u, len * u), span(BufferId::Recv, m.pi[w] * u, len * u));
    w += len;
  }
  s.note = inner.note;
  appendNote(&s, base.note);
  return s;
}

}  // namespace topocoll::mapping
