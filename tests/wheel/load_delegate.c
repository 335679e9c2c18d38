/* Loads a libfusedelegate.so through its two plugin entry points, as a TFLite
 * runtime does, and makes and frees a delegate with the default options and
 * with an unknown option (which must be refused). scripts/check_wheels.sh runs it
 * under qemu on the aarch64 wheel's library. Prints "ok" and exits 0 if all hold. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef void* (*Create)(char** keys, char** values, size_t n, void (*report_error)(const char*));
typedef void (*Destroy)(void* delegate);

static int errors_reported = 0;
static void report(const char* message) {
  ++errors_reported;
  fprintf(stderr, "reported: %s\n", message);
}

int main(int argc, char** argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s libfusedelegate.so\n", argv[0]), 2;
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fprintf(stderr, "dlopen: %s\n", dlerror()), 1;
  Create create = (Create)dlsym(lib, "tflite_plugin_create_delegate");
  Destroy destroy = (Destroy)dlsym(lib, "tflite_plugin_destroy_delegate");
  if (!create || !destroy) return fprintf(stderr, "the plugin entry points are missing\n"), 1;
  void* delegate = create(NULL, NULL, 0, report);
  if (!delegate || errors_reported) return fprintf(stderr, "no delegate with the default options\n"), 1;
  destroy(delegate);
  char* keys[] = {"no_such_option"};
  char* values[] = {"1"};
  if (create(keys, values, 1, report) || !errors_reported)
    return fprintf(stderr, "an unknown option was not refused\n"), 1;
  printf("ok\n");
  return 0;
}
