// Groups (src/mpi/group.ts): a communicator's group, subsets (incl, excl), set operations, rank
// translation, free. JS holds an index into a table, like communicators; indices are never
// reused, so a freed group's handle stays invalid and says so.
#include <climits>
#include <string>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

std::vector<MPI_Group>& groupTable() {
  static std::vector<MPI_Group> table;
  return table;
}

int groupSizeOf(MPI_Group g) {
  int n = 0;
  PMPI_Group_size(g, &n);
  return n;
}

// Ranks of `g`, each in [0, size) and, where `distinct`, each once (incl and excl require it).
std::vector<int> ranksArg(const Napi::Value& v, MPI_Group g, const char* what, bool distinct) {
  Napi::Env env = v.Env();
  if (!v.IsArray() && !v.IsTypedArray()) throwType(env, std::string(what) + ": ranks must be an array of ranks");
  Napi::Object o = v.As<Napi::Object>();
  uint32_t n = o.Get("length").As<Napi::Number>().Uint32Value();
  int size = groupSizeOf(g);
  std::vector<int> out(n);
  std::vector<bool> seen(size, false);
  for (uint32_t i = 0; i < n; ++i) {
    std::string name = std::string(what) + ": ranks[" + std::to_string(i) + "]";
    out[i] = static_cast<int>(intArg(o.Get(i), name.c_str(), 0, size - 1));
    if (distinct && seen[out[i]]) throwRange(env, name + " = " + std::to_string(out[i]) + " appears twice; each rank may appear once");
    seen[out[i]] = true;
  }
  return out;
}

Napi::Value groupHandle(Napi::Env env, MPI_Group g) { return Napi::Number::New(env, registerGroup(g)); }

Napi::Value CommGroup(const Napi::CallbackInfo& info) {
  MPI_Group g;
  check(info.Env(), PMPI_Comm_group(commArg(info[0]), &g), "MPI_Comm_group");
  return groupHandle(info.Env(), g);
}

Napi::Value GroupSize(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), groupSizeOf(groupArg(info[0]))); }

// This process's rank in the group, or UNDEFINED when it is not a member.
Napi::Value GroupRank(const Napi::CallbackInfo& info) {
  int r = MPI_UNDEFINED;
  check(info.Env(), PMPI_Group_rank(groupArg(info[0]), &r), "MPI_Group_rank");
  return Napi::Number::New(info.Env(), r == MPI_UNDEFINED ? kJsUndefined : r);
}

// (group, ranks, exclude): the members at `ranks`, in that order (incl), or all but them (excl).
Napi::Value GroupSubset(const Napi::CallbackInfo& info) {
  MPI_Group g = groupArg(info[0]);
  bool exclude = flagArg(info[2]);
  const char* what = exclude ? "excl" : "incl";
  std::vector<int> ranks = ranksArg(info[1], g, what, true);
  MPI_Group out;
  int n = static_cast<int>(ranks.size());
  check(info.Env(), exclude ? PMPI_Group_excl(g, n, ranks.data(), &out) : PMPI_Group_incl(g, n, ranks.data(), &out),
        exclude ? "MPI_Group_excl" : "MPI_Group_incl");
  return groupHandle(info.Env(), out);
}

// (group, ranks, other) → each rank's rank in `other`, UNDEFINED where it is not a member.
Napi::Value GroupTranslateRanks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Group g = groupArg(info[0]);
  std::vector<int> ranks = ranksArg(info[1], g, "translateRanks", false);
  MPI_Group other = groupArg(info[2], "other");
  std::vector<int> out(ranks.size());
  check(env, PMPI_Group_translate_ranks(g, static_cast<int>(ranks.size()), ranks.data(), other, out.data()), "MPI_Group_translate_ranks");
  auto a = Napi::Array::New(env, out.size());
  for (size_t i = 0; i < out.size(); ++i) a.Set(static_cast<uint32_t>(i), out[i] == MPI_UNDEFINED ? kJsUndefined : out[i]);
  return a;
}

// (group, other, which): 0 union, 1 intersection, 2 difference
Napi::Value GroupCombine(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Group a = groupArg(info[0]), b = groupArg(info[1], "other");
  int which = static_cast<int>(intArg(info[2], "operation", 0, 2));
  MPI_Group out;
  int rc = which == 0 ? PMPI_Group_union(a, b, &out) : which == 1 ? PMPI_Group_intersection(a, b, &out) : PMPI_Group_difference(a, b, &out);
  check(env, rc, which == 0 ? "MPI_Group_union" : which == 1 ? "MPI_Group_intersection" : "MPI_Group_difference");
  return groupHandle(env, out);
}

// 0 ident, 1 similar, 3 unequal (as commCompare numbers them; groups are never congruent).
Napi::Value GroupCompare(const Napi::CallbackInfo& info) {
  int result = MPI_UNEQUAL;
  check(info.Env(), PMPI_Group_compare(groupArg(info[0]), groupArg(info[1], "other"), &result), "MPI_Group_compare");
  return Napi::Number::New(info.Env(), result == MPI_IDENT ? 0 : result == MPI_SIMILAR ? 2 : 3);
}

Napi::Value GroupFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Group g = groupArg(info[0]);
  check(env, PMPI_Group_free(&g), "MPI_Group_free");
  groupTable()[info[0].As<Napi::Number>().Int32Value()] = MPI_GROUP_NULL;
  return env.Undefined();
}

}  // namespace

MPI_Group groupArg(const Napi::Value& value, const char* name) {
  auto& table = groupTable();
  if (table.empty()) throwType(value.Env(), std::string(name) + " must be a Group (comm.group makes one)");
  int64_t h = intArg(value, name, 0, static_cast<int64_t>(table.size()) - 1);
  if (table[h] == MPI_GROUP_NULL) throwType(value.Env(), std::string(name) + " is a freed group");
  return table[h];
}

int registerGroup(MPI_Group group) {
  auto& table = groupTable();
  table.push_back(group);
  return static_cast<int>(table.size() - 1);
}

void initGroups(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"commGroup", CommGroup},
                              {"groupSize", GroupSize},
                              {"groupRank", GroupRank},
                              {"groupSubset", GroupSubset},
                              {"groupTranslateRanks", GroupTranslateRanks},
                              {"groupCombine", GroupCombine},
                              {"groupCompare", GroupCompare},
                              {"groupFree", GroupFree}});
}

}  // namespace topocoll::addon
