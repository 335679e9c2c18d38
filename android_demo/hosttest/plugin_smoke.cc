// Loads a libfusedelegate.so and creates and destroys delegates through its
// TFLite plugin entry points: run under qemu-aarch64 on the arm64-v8a build,
// where no JVM or TFLite runtime is at hand.
// Usage: plugin_smoke LIBRARY EXPECTED_BEST_ISA
#include <dlfcn.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using Create = void* (*)(char**, char**, size_t, void (*)(const char*));
using Destroy = void (*)(void*);

std::string errors;
void on_error(const char* message) { errors += message; }

// Creates a delegate from "key", "value", ... pairs; returns whether it was created.
bool create_and_destroy(Create create, Destroy destroy, std::vector<std::string> kv) {
  std::vector<char*> keys, values;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    keys.push_back(&kv[i][0]);
    values.push_back(&kv[i + 1][0]);
  }
  errors.clear();
  void* delegate = create(keys.data(), values.data(), keys.size(), on_error);
  if (delegate) destroy(delegate);
  return delegate != nullptr;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "plugin_smoke: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: plugin_smoke LIBRARY EXPECTED_BEST_ISA");
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fail(dlerror());
  auto create = reinterpret_cast<Create>(dlsym(lib, "tflite_plugin_create_delegate"));
  auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "tflite_plugin_destroy_delegate"));
  if (!create || !destroy) return fail("the plugin entry points are missing");
  const std::string isa = argv[2];

  if (!create_and_destroy(create, destroy, {}))
    return fail("default options refused: " + errors);
  if (!create_and_destroy(create, destroy, {"isa", isa, "fusions", "all", "num_threads", "2"}))
    return fail("isa " + isa + " refused: " + errors);
  if (create_and_destroy(create, destroy, {"fusions", "bogus"}) ||
      errors.find("option 'fusions' has bad value 'bogus'") == std::string::npos)
    return fail("a bad option was not reported: '" + errors + "'");
  const std::string other = isa == "neon" ? "avx2" : "neon";
  if (create_and_destroy(create, destroy, {"isa", other}) ||
      errors.find("available here: scalar, " + isa) == std::string::npos)
    return fail("isa " + other + " was not refused as missing: '" + errors + "'");
  std::printf("plugin_smoke: %s loads, creates and destroys delegates (isa %s), reports bad options\n", argv[1],
              isa.c_str());
  return 0;
}
