#include "mapping/remap/comm_machine.h"

#include <set>
#include <stdexcept>
#include <vector>

#include "mapping/remap/machine_tree.h"
#include "topology/runtime.h"

namespace topocoll::mapping {

std::unique_ptr<PartTree> commMachineTree(MPI_Comm comm, const Hierarchy& hierarchy) {
  const topology::Resolved* resolved = topology::resolvedWorld();
  const topology::Topology* topo = topology::current();
  if (!resolved || !topo || resolved->levels() < 2 || static_cast<int>(topo->levels.size()) != resolved->levels()) return nullptr;
  const int h = hierarchy.nodeCount();
  if (h < 2) return nullptr;
  // World rank of every node's leader.
  std::vector<int> leaders = hierarchy.leaders(), world(leaders.size(), MPI_UNDEFINED);
  MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  bool ok = PMPI_Comm_group(comm, &group) == MPI_SUCCESS && PMPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS &&
            PMPI_Group_translate_ranks(group, h, leaders.data(), world_group, world.data()) == MPI_SUCCESS;
  if (group != MPI_GROUP_NULL) PMPI_Group_free(&group);
  if (world_group != MPI_GROUP_NULL) PMPI_Group_free(&world_group);
  if (!ok) return nullptr;
  std::vector<std::vector<int>> module_of(static_cast<size_t>(resolved->levels()), std::vector<int>(static_cast<size_t>(h)));
  std::vector<double> bandwidth;
  for (int l = 0; l < resolved->levels(); ++l) {
    bandwidth.push_back(topo->levels[l].bandwidth);
    for (int q = 0; q < h; ++q) {
      if (world[q] == MPI_UNDEFINED || world[q] < 0 || world[q] >= resolved->size) return nullptr;
      module_of[l][q] = resolved->module_of[l][world[q]];
    }
  }
  // One level where all nodes split (no coarser grouping): the flat partition is the same.
  int split_levels = 0;
  for (int l = 0; l < resolved->levels(); ++l) split_levels += std::set<int>(module_of[l].begin(), module_of[l].end()).size() > 1;
  if (split_levels < 2) return nullptr;
  std::vector<int> sizes(static_cast<size_t>(h));
  for (int q = 0; q < h; ++q) sizes[q] = static_cast<int>(hierarchy.members(q).size());
  try {
    return std::make_unique<PartTree>(machineTree(sizes, module_of, bandwidth));
  } catch (const std::invalid_argument&) {
    return nullptr;  // an inconsistent resolution: map by the nodes alone
  }
}

}  // namespace topocoll::mapping
