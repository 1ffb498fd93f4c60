#include "choice.h"

#include <mutex>
#include <string>
#include <unordered_set>

namespace topocoll {

const char* internReason(const std::string& text) {
  static std::mutex mutex;
  static std::unordered_set<std::string> texts;  // nodes never move: c_str() stays valid
  std::lock_guard<std::mutex> lock(mutex);
  return texts.insert(text).first->c_str();
}

std::atomic<uint64_t> g_selection_epoch{1};

}  // namespace topocoll
