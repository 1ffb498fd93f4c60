// Standalone tests of the engine's topology-file reader (native/engine/topology/topology.cc),
// which also reads the models' machine profiles (profiles/*.yaml as JSON): the quantity parser's
// four dimensions, every key the models add (LogGP o and g, flag latency, nic, the node, the
// switch fabric, copy bandwidth, round overhead, notes), and the messages for bad values.
// MPI-free: linked with json.cc and node_override.cc. Build and run: test/native/build.sh
#include <cmath>
#include <string>

#include "check.h"
#include "topology/topology.h"

using namespace topocoll;
using topocoll::test::Test;
using topology::Dimension;

namespace {

bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::fabs(b); }

double quantity(const char* text, Dimension dim) {
  double v = -1;
  return topology::parseQuantity(text, dim, &v) ? v : -1;
}

void quantitiesOfEveryDimension() {
  CHECK(near(quantity("2.37 us", Dimension::Time), 2.37e-6), "2.37 us");
  CHECK(near(quantity("3.2ns", Dimension::Time), 3.2e-9), "3.2ns");
  CHECK(quantity("6343 MiB/s", Dimension::Bandwidth) == 6343.0 * 1048576, "MiB/s");
  CHECK(quantity("6343 MB/s", Dimension::Bandwidth) == 6343e6, "MB/s");
  CHECK(quantity("10 Gbit/s", Dimension::Bandwidth) == 1.25e9, "Gbit/s");
  CHECK(quantity("312.5 MHz", Dimension::Frequency) == 312.5e6, "MHz");
  CHECK(quantity("256 bit", Dimension::Size) == 32, "bit");
  CHECK(quantity("64 KiB", Dimension::Size) == 65536, "KiB");
  // A unit of another dimension, a bare number, trailing words: not quantities.
  CHECK(quantity("2.37", Dimension::Time) < 0, "bare number");
  CHECK(quantity("1 GB", Dimension::Bandwidth) < 0, "size as bandwidth");
  CHECK(quantity("1 GB/s", Dimension::Size) < 0, "bandwidth as size");
  CHECK(quantity("1 us", Dimension::Frequency) < 0, "time as frequency");
  CHECK(quantity("1 MHz x", Dimension::Frequency) < 0, "trailing word");
}

bool read(const std::string& json, topology::Topology* t, std::string* error) {
  return topology::parseTopologyJson(json, "m.json", t, error);
}

void everyModelKey() {
  const std::string json = R"({
    "name": "bxj",
    "levels": [
      {"name": "net", "scope": "system", "latency": "2 us", "bandwidth": "1 GB/s", "overhead": "0.5 us", "gap": "0.1 us", "nic": false},
      {"name": "shm", "scope": "host", "latency": 1e-6, "bandwidth": 5e9, "signal_latency": "0.1 us"}
    ],
    "node": {"sockets": 2, "cores_per_socket": 6},
    "network": {"switch_radix": 16, "hops": 3, "clock": "312.5 MHz", "packet": "256 bit"},
    "copy_bandwidth": "24096 MiB/s",
    "round_overhead": "25 ns",
    "notes": {"device_latency": "1.58 us", "anything": [1, 2]}
  })";
  topology::Topology t;
  std::string error;
  CHECK(read(json, &t, &error), "%s", error.c_str());
  const topology::Level& net = t.levels[0];
  CHECK(near(net.overhead, 0.5e-6) && near(net.gap, 0.1e-6) && net.nic == 0 && net.signal_latency < 0, "net: o %g g %g nic %d", net.overhead, net.gap, net.nic);
  const topology::Level& shm = t.levels[1];
  CHECK(near(shm.signal_latency, 0.1e-6) && shm.nic == -1 && shm.overhead == 0, "shm: signal %g nic %d", shm.signal_latency, shm.nic);
  CHECK(t.node.sockets == 2 && t.node.cores_per_socket == 6 && t.node.nics == 1, "node %d x %d, %d nics", t.node.sockets, t.node.cores_per_socket, t.node.nics);
  CHECK(t.network.switch_radix == 16 && t.network.hops == 3 && t.network.nodes_per_switch == 0, "network");
  CHECK(t.network.clock == 312.5e6 && t.network.packet == 32, "clock %g packet %g", t.network.clock, t.network.packet);
  CHECK(t.copy_bandwidth == 24096.0 * 1048576 && near(t.round_overhead, 25e-9), "copy %g round %g", t.copy_bandwidth, t.round_overhead);

  // Without them: nothing said.
  topology::Topology bare;
  CHECK(read(R"({"levels": [{"name": "n", "scope": "system", "latency": 0, "bandwidth": 1}]})", &bare, &error), "%s", error.c_str());
  CHECK(bare.node.sockets == 0 && bare.network.switch_radix == 0 && bare.copy_bandwidth == 0 && bare.round_overhead == 0, "bare");
}

// The message for `json`, which must be refused.
std::string refusal(const std::string& json) {
  topology::Topology t;
  std::string error;
  if (read(json, &t, &error)) return "(accepted)";
  return error;
}

void badModelKeys() {
  const std::string level = R"({"name": "n", "scope": "system", "latency": "1 us", "bandwidth": "1 GB/s")";
  auto with = [&](const std::string& level_extra, const std::string& top_extra) {
    return "{\"levels\": [" + level + level_extra + "}]" + top_extra + "}";
  };
  std::string e = refusal(with(R"(, "overhead": "0.6 us")", ""));
  CHECK(e == "m.json:1: levels[0].overhead: LogGP needs latency >= 2 x overhead", "%s", e.c_str());
  e = refusal(with(R"(, "nic": "yes")", ""));
  CHECK(e == "m.json:1: levels[0].nic: must be true or false, got string \"yes\"", "%s", e.c_str());
  e = refusal(with("", R"(, "node": {"sockets": 0, "cores_per_socket": 2})"));
  CHECK(e == "m.json:1: node.sockets: must be a whole number >= 1, got number 0", "%s", e.c_str());
  e = refusal(with("", R"(, "node": {"sockets": 1})"));
  CHECK(e == "m.json:1: node.cores_per_socket: is required", "%s", e.c_str());
  e = refusal(with("", R"(, "network": {"switch_radix": 16, "hops": 3, "clock": "1 GB", "packet": 32})"));
  CHECK(e == "m.json:1: network.clock: \"1 GB\" is not a frequency with a unit (Hz, kHz, MHz, GHz)", "%s", e.c_str());
  e = refusal(with("", R"(, "network": {"switch_radix": 16, "hops": 3, "clock": 1e9, "packet": "0 B"})"));
  CHECK(e == "m.json:1: network.packet: must be a finite positive size, got \"0 B\"", "%s", e.c_str());
  e = refusal(with("", R"(, "copy_bandwidth": "1 us")"));
  CHECK(e.rfind("m.json:1: copy_bandwidth: \"1 us\" is not a bandwidth with a unit (B/s, ", 0) == 0, "%s", e.c_str());
  e = refusal(with("", R"(, "notes": "text")"));
  CHECK(e == "m.json:1: notes: must be a mapping (free-form remarks), got string \"text\"", "%s", e.c_str());
}

}  // namespace

int main() {
  const Test tests[] = {
      {"quantities: time, bandwidth, frequency, size", quantitiesOfEveryDimension},
      {"every key of a machine profile", everyModelKey},
      {"bad model keys: file, line, key and what is wrong", badModelKeys},
  };
  return topocoll::test::runTests(tests);
}
