// One buffer of a call as the executor sees it, apart so that staging (which fills it) and the
// executor (which reads it) share it without including each other.
#pragma once

#include <cstdint>

namespace topocoll {

// Where the blocks of one buffer live, in bytes of the type signature (what every rank of a call
// agrees on, whatever datatypes the ranks pass): block b starts at base + b * blockBytes. The
// engine binds the user's memory itself when its datatype is contiguous, else a staging copy
// (staging.h); the executor moves bytes (MPI_BYTE, memcpy) only.
struct BufferBinding {
  char* base = nullptr;
  int64_t blockBytes = 0;
};

}  // namespace topocoll
