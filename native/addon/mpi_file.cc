// MPI-IO (src/mpi/file.ts): open/close/delete, size, sync, views with the datatypes of
// mpi_datatype.cc, reads and writes at explicit offsets or through the individual file pointer
// (independent, collective, or nonblocking at an offset), seek. JS holds an index into a table of
// open files, like communicators; indices are never reused, so a closed file stays invalid.
// MPI-IO's default error handler returns error codes (MPI_ERRORS_RETURN on MPI_FILE_NULL), which
// become MpiErrors that name the file.
#include <cstdint>
#include <string>
#include <vector>

#include "addon.h"
#include "mpi_binding.h"

namespace topocoll::addon {
namespace {

struct FileEntry {
  MPI_File file = MPI_FILE_NULL;  // MPI_FILE_NULL once closed
  std::string path;
};

std::vector<FileEntry>& fileTable() {
  static std::vector<FileEntry> table;
  return table;
}

// Offsets and sizes travel as JS numbers: exact up to 2^53.
constexpr int64_t kMaxOffset = int64_t{1} << 53;

FileEntry& fileArg(const Napi::Value& v, const char* what) {
  auto& table = fileTable();
  Napi::Env env = v.Env();
  if (table.empty()) throwType(env, std::string(what) + ": file must be an open File (File.open)");
  int64_t h = intArg(v, "file", 0, static_cast<int64_t>(table.size()) - 1);
  if (table[h].file == MPI_FILE_NULL) throwType(env, std::string(what) + ": the file '" + table[h].path + "' is closed");
  return table[h];
}

// An MPI error of an operation on `path`: "MPI_File_open('/x/y'): MPI_ERR_NO_SUCH_FILE: <MPI's text>"
// (the class named once: Open MPI's texts begin with it, MPICH's do not).
void checkFile(Napi::Env env, int code, const char* call, const std::string& path) {
  if (code == MPI_SUCCESS) return;
  int errorClass = code, len = 0;
  char text[MPI_MAX_ERROR_STRING] = {0};
  PMPI_Error_class(code, &errorClass);
  PMPI_Error_string(code, text, &len);
  std::string className = mpiErrorClassName(errorClass);
  std::string what = std::string(call) + "('" + path + "')";
  if (std::string(text).rfind(className, 0) != 0) what += ": " + className;
  throwMpiError(env, code, what.c_str());
}

std::string pathArg(const Napi::Value& v, const char* what) {
  if (!v.IsString() || v.As<Napi::String>().Utf8Value().empty()) throwType(v.Env(), std::string(what) + ": path must be a non-empty string");
  return v.As<Napi::String>().Utf8Value();
}

MPI_Offset offsetArg(const Napi::Value& v, const char* name) { return static_cast<MPI_Offset>(intArg(v, name, 0, kMaxOffset)); }

// (comm, path, amode, info) → handle
Napi::Value FileOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Comm comm = intracommArg(info[0]);
  std::string path = pathArg(info[1], "File.open");
  int amode = static_cast<int>(intArg(info[2], "File.open: amode", 0, INT32_MAX));
  MPI_Info hints = infoArg(info[3], "File.open");
  MPI_File file;
  int rc = PMPI_File_open(comm, path.c_str(), amode, hints, &file);
  if (hints != MPI_INFO_NULL) PMPI_Info_free(&hints);
  checkFile(env, rc, "MPI_File_open", path);
  auto& table = fileTable();
  table.push_back({file, path});
  return Napi::Number::New(env, static_cast<double>(table.size() - 1));
}

// (file): collective; later use of the handle is a TypeError
Napi::Value FileClose(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "close");
  checkFile(info.Env(), PMPI_File_close(&f.file), "MPI_File_close", f.path);
  f.file = MPI_FILE_NULL;
  return info.Env().Undefined();
}

// (path, info)
Napi::Value FileDelete(const Napi::CallbackInfo& info) {
  std::string path = pathArg(info[0], "File.delete");
  MPI_Info hints = infoArg(info[1], "File.delete");
  int rc = PMPI_File_delete(path.c_str(), hints);
  if (hints != MPI_INFO_NULL) PMPI_Info_free(&hints);
  checkFile(info.Env(), rc, "MPI_File_delete", path);
  return info.Env().Undefined();
}

// (file) → bytes
Napi::Value FileGetSize(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "size");
  MPI_Offset size = 0;
  checkFile(info.Env(), PMPI_File_get_size(f.file, &size), "MPI_File_get_size", f.path);
  return Napi::Number::New(info.Env(), static_cast<double>(size));
}

// (file, bytes): collective, every rank the same size
Napi::Value FileSetSize(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "setSize");
  MPI_Offset size = offsetArg(info[1], "setSize: size");
  checkFile(info.Env(), PMPI_File_set_size(f.file, size), "MPI_File_set_size", f.path);
  return info.Env().Undefined();
}

// (file): collective
Napi::Value FileSync(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "sync");
  checkFile(info.Env(), PMPI_File_sync(f.file), "MPI_File_sync", f.path);
  return info.Env().Undefined();
}

// (file) → the access mode MPI_File_get_amode gives (MPI_MODE_* flags)
Napi::Value FileGetAmode(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "amode");
  int amode = 0;
  checkFile(info.Env(), PMPI_File_get_amode(f.file, &amode), "MPI_File_get_amode", f.path);
  return Napi::Number::New(info.Env(), amode);
}

// (file, disp, etype, filetype, datarep): collective
Napi::Value FileSetView(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FileEntry& f = fileArg(info[0], "setView");
  MPI_Offset disp = offsetArg(info[1], "setView: disp");
  MPI_Datatype etype = committedTypeArg(info[2], "setView: etype");
  MPI_Datatype filetype = committedTypeArg(info[3], "setView: filetype");
  if (!info[4].IsString()) throwType(env, "setView: datarep must be 'native', 'internal' or 'external32'");
  std::string datarep = info[4].As<Napi::String>().Utf8Value();
  if (datarep != "native" && datarep != "internal" && datarep != "external32") {
    throwType(env, "setView: datarep '" + datarep + "' is not one of 'native', 'internal', 'external32'");
  }
  checkFile(env, PMPI_File_set_view(f.file, disp, etype, filetype, datarep.c_str(), MPI_INFO_NULL), "MPI_File_set_view", f.path);
  return env.Undefined();
}

// The buffer of a read or write: its element count within what the MPI can take in one call.
struct IoBuffer {
  BufferView b;
  bool large;
};

IoBuffer ioBufferArg(const Napi::Value& v, const char* what) {
  IoBuffer io{bufferArg(v, "buf"), false};
  io.large = largeCount(v.Env(), io.b.count, what);
  return io;
}

// One call of the four kinds (independent/collective × read/write) at an explicit offset or at the
// individual file pointer: `rc` and `call` set by `collective` and `large`.
#define TOPOCOLL_FILE_CALL(rc, call, collective, large, single, all, ...)                                 \
  if (collective) {                                                                                         \
    call = "MPI_" #all, rc = TOPOCOLL_COUNT_CALL(large, all, __VA_ARGS__);                                  \
  } else {                                                                                                  \
    call = "MPI_" #single, rc = TOPOCOLL_COUNT_CALL(large, single, __VA_ARGS__);                            \
  }

// (file, offset, buf, collective) at an explicit offset, or (file, buf, collective) at the
// individual file pointer, which advances → status; offsets in etypes of the view
template <bool write, bool atOffset>
Napi::Value FileAccess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string what = atOffset ? (write ? "writeAt" : "readAt") : (write ? "write" : "read");
  FileEntry& f = fileArg(info[0], what.c_str());
  MPI_Offset offset = atOffset ? offsetArg(info[1], (what + ": offset").c_str()) : 0;
  IoBuffer io = ioBufferArg(info[atOffset ? 2 : 1], what.c_str());
  bool collective = flagArg(info[atOffset ? 3 : 2]);
  MPI_Status status{};
  int rc = MPI_SUCCESS;
  const char* call = "";
  const BufferView& b = io.b;
  if (atOffset && write) {
    TOPOCOLL_FILE_CALL(rc, call, collective, io.large, File_write_at, File_write_at_all, f.file, offset, b.data, b.count, b.type, &status)
  } else if (atOffset) {
    TOPOCOLL_FILE_CALL(rc, call, collective, io.large, File_read_at, File_read_at_all, f.file, offset, b.data, b.count, b.type, &status)
  } else if (write) {
    TOPOCOLL_FILE_CALL(rc, call, collective, io.large, File_write, File_write_all, f.file, b.data, b.count, b.type, &status)
  } else {
    TOPOCOLL_FILE_CALL(rc, call, collective, io.large, File_read, File_read_all, f.file, b.data, b.count, b.type, &status)
  }
  checkFile(env, rc, call, f.path);
  return statusObject(env, status, b.type);
}

#undef TOPOCOLL_FILE_CALL

// (file, offset, buf) → a request whose status() is the read's or write's
template <bool write>
Napi::Value FileIaccessAt(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* what = write ? "iwriteAt" : "ireadAt";
  FileEntry& f = fileArg(info[0], what);
  MPI_Offset offset = offsetArg(info[1], write ? "iwriteAt: offset" : "ireadAt: offset");
  IoBuffer io = ioBufferArg(info[2], what);
  MPI_Request request;
  int rc = write ? TOPOCOLL_COUNT_CALL(io.large, File_iwrite_at, f.file, offset, io.b.data, io.b.count, io.b.type, &request)
                 : TOPOCOLL_COUNT_CALL(io.large, File_iread_at, f.file, offset, io.b.data, io.b.count, io.b.type, &request);
  checkFile(env, rc, write ? "MPI_File_iwrite_at" : "MPI_File_iread_at", f.path);
  return MpiRequestWrap::New(env, request, io.b.type);
}

// (file, offset, whence 0 set | 1 current | 2 end): offset in etypes, negative only from current or end
Napi::Value FileSeek(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FileEntry& f = fileArg(info[0], "seek");
  int whence = static_cast<int>(intArg(info[2], "seek: whence", 0, 2));
  MPI_Offset offset = static_cast<MPI_Offset>(intArg(info[1], "seek: offset", whence == 0 ? 0 : -kMaxOffset, kMaxOffset));
  const int kWhence[] = {MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END};
  checkFile(env, PMPI_File_seek(f.file, offset, kWhence[whence]), "MPI_File_seek", f.path);
  return env.Undefined();
}

// (file) → the individual file pointer, in etypes of the view
Napi::Value FileGetPosition(const Napi::CallbackInfo& info) {
  FileEntry& f = fileArg(info[0], "position");
  MPI_Offset offset = 0;
  checkFile(info.Env(), PMPI_File_get_position(f.file, &offset), "MPI_File_get_position", f.path);
  return Napi::Number::New(info.Env(), static_cast<double>(offset));
}

}  // namespace

void initFiles(Napi::Env env, Napi::Object exports) {
  setFunctions(env, exports, {{"fileOpen", FileOpen},
                              {"fileClose", FileClose},
                              {"fileDelete", FileDelete},
                              {"fileGetSize", FileGetSize},
                              {"fileSetSize", FileSetSize},
                              {"fileSync", FileSync},
                              {"fileGetAmode", FileGetAmode},
                              {"fileSetView", FileSetView},
                              {"fileWriteAt", FileAccess<true, true>},
                              {"fileReadAt", FileAccess<false, true>},
                              {"fileWrite", FileAccess<true, false>},
                              {"fileRead", FileAccess<false, false>},
                              {"fileIwriteAt", FileIaccessAt<true>},
                              {"fileIreadAt", FileIaccessAt<false>},
                              {"fileSeek", FileSeek},
                              {"fileGetPosition", FileGetPosition}});
  // The access-mode flags of this MPI (their values differ between MPIs), for File.open's mode names.
  auto modes = Napi::Object::New(env);
  modes.Set("r", MPI_MODE_RDONLY);
  modes.Set("w", MPI_MODE_WRONLY);
  modes.Set("rw", MPI_MODE_RDWR);
  modes.Set("create", MPI_MODE_CREATE);
  modes.Set("excl", MPI_MODE_EXCL);
  modes.Set("append", MPI_MODE_APPEND);
  modes.Set("deleteOnClose", MPI_MODE_DELETE_ON_CLOSE);
  modes.Set("uniqueOpen", MPI_MODE_UNIQUE_OPEN);
  exports.Set("FILE_MODES", modes);
}

}  // namespace topocoll::addon
