// A call's buffers in bytes of the type signature. MPI lets every rank pass its own datatype as
// long as the type signatures match (root: 4096 MPI_INT, the others: 1024 of a contiguous(4,
// MPI_INT) or a vector), so schedules cut blocks, segments and shared-memory areas in signature
// bytes, the one unit every rank agrees on. Memory of a contiguous datatype is bound as it is;
// any other is packed into a staging area at the start of the call and unpacked at its end
// (MPI_Pack/MPI_Unpack: local, no traffic on any communicator).
#pragma once

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "buffer_binding.h"

namespace topocoll {


// Whether a count or byte span fits the int of an MPI-3 call.
inline bool fitsInt(int64_t n) { return n >= 0 && n <= INT_MAX; }

// Bytes of `count` elements of `type` in its signature (MPI_Type_size), or an MPI error.
int signatureBytes(MPI_Count count, MPI_Datatype type, int64_t* bytes);

// Whether elements of `type` are their signature's bytes in order from the buffer's start
// (their memory is their packed form): a predefined type without gaps, or contiguous/dup types
// of one.
int isContiguous(MPI_Datatype type, bool* out);

class StagedBuffers {
 public:
  // `comm`: the communicator MPI_Pack/Unpack are told (the engine's shadow: its errors return).
  explicit StagedBuffers(MPI_Comm comm = MPI_COMM_NULL) : comm_(comm) {}

  // Binds `blocks` blocks of `block_bytes` signature bytes at `base` holding `count` elements of
  // `type` per block. The caller's memory when the type is contiguous; else a staging area into
  // which `pack_first`..+`pack_blocks` are packed now (the blocks the call reads), and which
  // unpack() copies back whole when `unpack_at_end` (the call writes the buffer).
  int bind(void* base, MPI_Count count, MPI_Datatype type, int64_t block_bytes, int64_t blocks, int64_t pack_first,
           int64_t pack_blocks, bool unpack_at_end, BufferBinding* out);
  // The send side: `count` elements of `type` packed into exactly `block_bytes` per block
  // (MPI_ERR_TRUNCATE when their signature is longer, as the receivers would report).
  int bindSend(const void* base, MPI_Count count, MPI_Datatype type, int64_t block_bytes, int64_t blocks, BufferBinding* out);

  // Copies the staged receive areas into the caller's memory; once.
  int unpack();

 private:
  // A duplicate of the caller's type: MPI lets a program free its datatype while a nonblocking
  // call using it is pending, and the unpack at the end still needs it.
  class TypeRef {
   public:
    TypeRef() = default;
    TypeRef(TypeRef&& o) noexcept : type_(o.type_) { o.type_ = MPI_DATATYPE_NULL; }
    TypeRef& operator=(TypeRef&& o) noexcept;
    ~TypeRef();
    int dup(MPI_Datatype type) { return PMPI_Type_dup(type, &type_); }
    MPI_Datatype get() const { return type_; }

   private:
    MPI_Datatype type_ = MPI_DATATYPE_NULL;
  };
  struct Staged {
    std::unique_ptr<char[]> bytes;
    void* user = nullptr;
    MPI_Count elements = 0;  // of `type` in the whole buffer
    TypeRef type;            // set when unpacking at the end
    int64_t size = 0;
    bool unpack_at_end = false;
  };
  int pack(char* staged, MPI_Datatype type, const void* from, MPI_Count elements, int64_t at, int64_t bytes) const;

  MPI_Comm comm_;
  std::vector<Staged> staged_;
};

}  // namespace topocoll
