#include "topology/runtime.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "config.h"
#include "hierarchy/hierarchy.h"
#include "hierarchy/node_override.h"
#include "topology/json.h"

namespace topocoll::topology {
namespace {

std::unique_ptr<Topology> g_installed;  // from the Node side, before MPI_Init
std::unique_ptr<Topology> g_current;
std::unique_ptr<Resolved> g_resolved;

// Rank 0's file text (or its error) for every rank: a file that one host cannot read would
// otherwise leave some ranks failing and the others waiting for them.
int broadcastFile(MPI_Comm world, const std::string& path, std::string* text, bool* ok, std::string* error) {
  int rank = 0;
  PMPI_Comm_rank(world, &rank);
  std::string payload;
  long long header[2] = {0, 0};  // {ok, bytes}
  if (rank == 0) {
    *ok = json::readFile(path, kFileKind, text, error);
    payload = *ok ? *text : *error;
    header[0] = *ok;
    header[1] = static_cast<long long>(payload.size());
  }
  int rc = PMPI_Bcast(header, 2, MPI_LONG_LONG, 0, world);
  if (rc != MPI_SUCCESS) return rc;
  if (header[1] > INT32_MAX) {
    *ok = false;
    *error = path + ": the topology file is too large";
    return MPI_SUCCESS;
  }
  payload.resize(static_cast<size_t>(header[1]));
  if (header[1] > 0 && (rc = PMPI_Bcast(payload.data(), static_cast<int>(header[1]), MPI_CHAR, 0, world)) != MPI_SUCCESS) {
    return rc;
  }
  *ok = header[0] != 0;
  if (*ok) *text = std::move(payload);
  else *error = std::move(payload);
  return MPI_SUCCESS;
}

int gatherHosts(MPI_Comm world, std::vector<std::string>* hosts) {
  int size = 0, len = 0;
  PMPI_Comm_size(world, &size);
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0'), all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  int rc = PMPI_Get_processor_name(mine.data(), &len);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, world);
  if (rc != MPI_SUCCESS) return rc;
  hosts->clear();
  for (int r = 0; r < size; ++r) {
    const char* name = all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    hosts->emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }
  return MPI_SUCCESS;
}

}  // namespace

bool install(const std::string& json_text, const std::string& source, const std::vector<int>* lines, std::string* error) {
  auto t = std::make_unique<Topology>();
  if (!parseTopologyText(json_text, source, t.get(), error, lines)) return false;
  g_installed = std::move(t);
  return true;
}

int initialize(MPI_Comm world, std::string* error) {
  const std::string& path = config().text(Parameter::Topology);
  std::unique_ptr<Topology> t = std::move(g_installed);
  if (!t) {
    if (path.empty()) return MPI_SUCCESS;
    std::string text;
    bool ok = false;
    int rc = broadcastFile(world, path, &text, &ok, error);
    if (rc != MPI_SUCCESS) return rc;
    t = std::make_unique<Topology>();
    if (!ok || !parseTopologyText(text, path, t.get(), error)) return MPI_ERR_ARG;
  }
  std::vector<std::string> hosts;
  int rc = gatherHosts(world, &hosts);
  if (rc != MPI_SUCCESS) return rc;
  auto resolved = std::make_unique<Resolved>();
  if (!resolveTopology(*t, hosts, resolved.get(), error)) return MPI_ERR_ARG;
  if (t->virtual_nodes.active()) {
    if (!config().text(Parameter::VirtualNodes).empty()) {
      *error = t->source + ":" + std::to_string(t->virtual_nodes_line) +
               ": virtual_nodes: the topology file and TOPOCOLL_VIRTUAL_NODES both map ranks to virtual nodes; keep one";
      return MPI_ERR_ARG;
    }
    setNodeOverride(t->virtual_nodes);
  }
  g_current = std::move(t);
  g_resolved = std::move(resolved);
  return MPI_SUCCESS;
}

const Topology* current() { return g_current.get(); }
const Resolved* resolvedWorld() { return g_resolved.get(); }

int virtualNodeOf(int world_rank) {
  if (!g_current || !g_current->virtual_nodes.active()) return -1;
  return g_current->virtual_nodes.nodeOf(world_rank);
}

}  // namespace topocoll::topology
