// init/finalize/abort and process facts. Policy (when to finalize or abort) lives in TypeScript.
#include <dlfcn.h>

#include <cstring>
#include <string>

#include "addon.h"
#include "engine.h"

namespace topocoll::addon {
namespace {

bool g_we_initialized = false;

const char* levelName(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    default: return "multiple";
  }
}

// True on the thread that called MPI_Init_thread (Node's main thread, or a worker's).
bool onThreadMain() {
  int flag = 0;
  PMPI_Is_thread_main(&flag);
  return flag != 0;
}

// Node loads addons with RTLD_LOCAL, which hides libmpi's symbols from the plugins Open MPI
// dlopens itself (mca components); promoting libmpi to the global scope fixes that, as mpi4py does.
void promoteMpiLibrary() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&PMPI_Init_thread), &info) && info.dli_fname) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int required = static_cast<int>(intArg(info[0], "threadLevel", MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE));
  int initialized = 0, provided = MPI_THREAD_SINGLE;
  PMPI_Initialized(&initialized);
  if (!initialized) {
    promoteMpiLibrary();
    check(env, PMPI_Init_thread(nullptr, nullptr, required, &provided), "MPI_Init_thread");
    g_we_initialized = true;
  } else {
    PMPI_Query_thread(&provided);
    // Another thread (a worker_thread) started MPI: below MPI_THREAD_MULTIPLE, MPI may not be
    // called from here at all (funneled, single) or only in turns the program cannot arrange
    // across Node threads (serialized); calling it anyway can deadlock or corrupt MPI's state.
    if (provided < MPI_THREAD_MULTIPLE && !onThreadMain()) {
      throw Napi::Error::New(env, std::string("topocoll: MPI is used from a thread other than the one that initialized it, and MPI provides "
                                              "thread level \"") + levelName(provided) +
                                      "\"; call init({ threadLevel: 'multiple' }) on the main thread before any worker_thread uses MPI");
    }
  }
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::string error;
  if (engine::initialize(&error) != MPI_SUCCESS) throw Napi::Error::New(env, "topocoll: " + error);
  auto result = Napi::Object::New(env);
  result.Set("provided", provided);
  // Only the thread that initialized MPI says so (a worker adopting it did not).
  result.Set("initializedHere", g_we_initialized && onThreadMain());
  return result;
}

Napi::Value Finalize(const Napi::CallbackInfo& info) {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  // Only the thread that initialized MPI finalizes it (MPI requires it), never a worker.
  if (initialized && !finalized && onThreadMain()) {
    engine::finalize();
    if (g_we_initialized) check(info.Env(), PMPI_Finalize(), "MPI_Finalize");
  }
  return info.Env().Undefined();
}

Napi::Value Abort(const Napi::CallbackInfo& info) {
  int code = static_cast<int>(intArg(info[0], "errorcode", 0, 255));
  PMPI_Abort(MPI_COMM_WORLD, code);
  return info.Env().Undefined();
}

Napi::Value State(const Napi::CallbackInfo& info) {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  auto s = Napi::Object::New(info.Env());
  s.Set("initialized", initialized != 0);
  s.Set("finalized", finalized != 0);
  return s;
}

Napi::Value CommRank(const Napi::CallbackInfo& info) {
  int rank = 0;
  check(info.Env(), PMPI_Comm_rank(commArg(info[0]), &rank), "MPI_Comm_rank");
  return Napi::Number::New(info.Env(), rank);
}

Napi::Value CommSize(const Napi::CallbackInfo& info) {
  int size = 0;
  check(info.Env(), PMPI_Comm_size(commArg(info[0]), &size), "MPI_Comm_size");
  return Napi::Number::New(info.Env(), size);
}

Napi::Value ProcessorName(const Napi::CallbackInfo& info) {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  check(info.Env(), PMPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  return Napi::String::New(info.Env(), name, len);
}

Napi::Value Wtime(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), PMPI_Wtime()); }

// Open MPI counts the terminating NUL in the length MPI_Get_library_version gives; MPICH does not.
std::string libraryVersionText(const char* text, int len) { return std::string(text, strnlen(text, len)); }

Napi::Value Wtick(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), PMPI_Wtick()); }

// The thread level MPI provides, as MPI_THREAD_* (threadLevels names them). Needs MPI initialized.
Napi::Value QueryThread(const Napi::CallbackInfo& info) {
  int provided = MPI_THREAD_SINGLE;
  check(info.Env(), PMPI_Query_thread(&provided), "MPI_Query_thread");
  return Napi::Number::New(info.Env(), provided);
}

// Whether the calling thread is the one that initialized MPI. Needs MPI initialized.
Napi::Value IsThreadMain(const Napi::CallbackInfo& info) {
  int flag = 0;
  check(info.Env(), PMPI_Is_thread_main(&flag), "MPI_Is_thread_main");
  return Napi::Boolean::New(info.Env(), flag != 0);
}

// MPI_Get_version and MPI_Get_library_version of the library loaded; need no MPI_Init.
Napi::Value Version(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, major = 0, minor = 0;
  check(env, PMPI_Get_version(&major, &minor), "MPI_Get_version");
  check(env, PMPI_Get_library_version(library, &len), "MPI_Get_library_version");
  auto o = Napi::Object::New(env);
  o.Set("major", major);
  o.Set("minor", minor);
  o.Set("libraryVersion", libraryVersionText(library, len));
  return o;
}

// Facts about the build and the MPI library; needs no MPI_Init.
Napi::Value BuildInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, major = 0, minor = 0;
  PMPI_Get_library_version(version, &len);
  PMPI_Get_version(&major, &minor);
  auto o = Napi::Object::New(env);
  o.Set("flavour", TOPOCOLL_MPI_FLAVOUR);
  o.Set("libraryVersion", libraryVersionText(version, len));
  o.Set("mpiVersion", std::to_string(major) + "." + std::to_string(minor));
  o.Set("largeCount", MPI_VERSION >= 4);
  Dl_info dl;
  if (dladdr(reinterpret_cast<void*>(&engine::initialize), &dl) && dl.dli_fname) o.Set("library", dl.dli_fname);
  return o;
}

}  // namespace

void initLifecycle(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"init", Init},
                              {"finalize", Finalize},
                              {"abort", Abort},
                              {"state", State},
                              {"commRank", CommRank},
                              {"commSize", CommSize},
                              {"processorName", ProcessorName},
                              {"wtime", Wtime},
                              {"wtick", Wtick},
                              {"queryThread", QueryThread},
                              {"isThreadMain", IsThreadMain},
                              {"version", Version},
                              {"buildInfo", BuildInfo}});
  exports.Set("threadLevels", [&] {
    auto o = Napi::Object::New(env);
    o.Set("single", static_cast<int>(MPI_THREAD_SINGLE));
    o.Set("funneled", static_cast<int>(MPI_THREAD_FUNNELED));
    o.Set("serialized", static_cast<int>(MPI_THREAD_SERIALIZED));
    o.Set("multiple", static_cast<int>(MPI_THREAD_MULTIPLE));
    return o;
  }());
}

}  // namespace topocoll::addon
