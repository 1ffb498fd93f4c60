#include "staging.h"

#include <climits>
#include <cstring>
#include <utility>


namespace topocoll {
namespace {

// The size of the commonest predefined types without a call into MPI (they are never freed, and
// their sizes are the C types'), else 0. Each is contiguous.
int64_t commonTypeSize(MPI_Datatype type) {
  if (type == MPI_BYTE || type == MPI_CHAR || type == MPI_UNSIGNED_CHAR) return 1;
  if (type == MPI_INT || type == MPI_UNSIGNED || type == MPI_FLOAT) return 4;
  if (type == MPI_DOUBLE) return 8;
  return 0;
}

}  // namespace

// Anything but a predefined type without gaps or contiguous/dup types of one (vector, indexed,
// struct, resized, even when gapless: an indexed type may reorder) is packed.
int isContiguous(MPI_Datatype type, bool* out) {
  if (commonTypeSize(type) > 0) return *out = true, MPI_SUCCESS;
  int ni, na, nt, combiner, size, rc;
  MPI_Aint lb, extent, true_lb, true_extent;
  *out = false;
  if ((rc = PMPI_Type_size(type, &size)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_true_extent(type, &true_lb, &true_extent)) != MPI_SUCCESS) return rc;
  if (size != extent || lb != 0 || true_lb != 0 || true_extent != extent) return MPI_SUCCESS;
  if ((rc = PMPI_Type_get_envelope(type, &ni, &na, &nt, &combiner)) != MPI_SUCCESS) return rc;
  if (combiner == MPI_COMBINER_NAMED) return *out = true, MPI_SUCCESS;
  if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || nt != 1 || ni > 1 || na != 0) return MPI_SUCCESS;
  int ints[1];
  MPI_Datatype inner;
  if ((rc = PMPI_Type_get_contents(type, ni, 0, 1, ints, nullptr, &inner)) != MPI_SUCCESS) return rc;
  rc = isContiguous(inner, out);
  int inner_combiner;
  if (PMPI_Type_get_envelope(inner, &ni, &na, &nt, &inner_combiner) == MPI_SUCCESS && inner_combiner != MPI_COMBINER_NAMED) {
    PMPI_Type_free(&inner);
  }
  return rc;
}

int signatureBytes(MPI_Count count, MPI_Datatype type, int64_t* bytes) {
  int64_t size = commonTypeSize(type);
  if (size == 0) {
    int s = 0;
    int rc = PMPI_Type_size(type, &s);
    if (rc != MPI_SUCCESS) return rc;
    size = s;
  }
  *bytes = count * size;
  return MPI_SUCCESS;
}

StagedBuffers::TypeRef& StagedBuffers::TypeRef::operator=(TypeRef&& o) noexcept {
  std::swap(type_, o.type_);
  return *this;
}

StagedBuffers::TypeRef::~TypeRef() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (type_ != MPI_DATATYPE_NULL && !finalized) PMPI_Type_free(&type_);
}

int StagedBuffers::pack(char* staged, MPI_Datatype type, const void* from, MPI_Count elements, int64_t at, int64_t bytes) const {
  if (!fitsInt(elements) || !fitsInt(at + bytes)) return MPI_ERR_COUNT;
  int position = static_cast<int>(at);
  return PMPI_Pack(from, static_cast<int>(elements), type, staged, static_cast<int>(at + bytes), &position, comm_);
}

int StagedBuffers::bind(void* base, MPI_Count count, MPI_Datatype type, int64_t block_bytes, int64_t blocks, int64_t pack_first,
                        int64_t pack_blocks, bool unpack_at_end, BufferBinding* out) {
  bool contiguous = false;
  int rc = isContiguous(type, &contiguous);
  if (rc != MPI_SUCCESS) return rc;
  if (contiguous) {
    *out = {static_cast<char*>(base), block_bytes};
    return MPI_SUCCESS;
  }
  MPI_Aint lb, extent;
  if ((rc = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return rc;
  Staged s;
  s.size = block_bytes * blocks;
  s.bytes.reset(new char[static_cast<size_t>(s.size) + 1]);
  s.user = base;
  s.elements = count * blocks;
  s.unpack_at_end = unpack_at_end;
  if (unpack_at_end && (rc = s.type.dup(type)) != MPI_SUCCESS) return rc;
  if (pack_blocks > 0) {
    const char* from = static_cast<const char*>(base) + static_cast<MPI_Aint>(pack_first * count) * extent;
    rc = pack(s.bytes.get(), type, from, pack_blocks * count, pack_first * block_bytes, pack_blocks * block_bytes);
    if (rc != MPI_SUCCESS) return rc;
  }
  *out = {s.bytes.get(), block_bytes};
  staged_.push_back(std::move(s));
  return MPI_SUCCESS;
}

int StagedBuffers::bindSend(const void* base, MPI_Count count, MPI_Datatype type, int64_t block_bytes, int64_t blocks,
                            BufferBinding* out) {
  int64_t bytes;
  int rc = signatureBytes(count, type, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  if (bytes > block_bytes) return MPI_ERR_TRUNCATE;
  if (bytes == block_bytes) return bind(const_cast<void*>(base), count, type, block_bytes, blocks, 0, blocks, false, out);
  // A shorter signature (an erroneous program): packed block by block, the rest zero.
  MPI_Aint lb, extent;
  if ((rc = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return rc;
  Staged s;
  s.size = block_bytes * blocks;
  s.bytes.reset(new char[static_cast<size_t>(s.size) + 1]());
  for (int64_t b = 0; b < blocks; ++b) {
    const char* from = static_cast<const char*>(base) + static_cast<MPI_Aint>(b * count) * extent;
    if ((rc = pack(s.bytes.get(), type, from, count, b * block_bytes, bytes)) != MPI_SUCCESS) return rc;
  }
  *out = {s.bytes.get(), block_bytes};
  staged_.push_back(std::move(s));
  return MPI_SUCCESS;
}

int StagedBuffers::unpack() {
  for (Staged& s : staged_) {
    if (!s.unpack_at_end) continue;
    s.unpack_at_end = false;
    if (!fitsInt(s.size) || !fitsInt(s.elements)) return MPI_ERR_COUNT;
    int position = 0;
    int rc = PMPI_Unpack(s.bytes.get(), static_cast<int>(s.size), &position, s.user, static_cast<int>(s.elements), s.type.get(), comm_);
    if (rc != MPI_SUCCESS) return rc;
  }
  staged_.clear();
  return MPI_SUCCESS;
}

}  // namespace topocoll
