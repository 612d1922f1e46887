// Allocation failure in the module: marked for the JS wrapper, then abort.
//
// With ALLOW_MEMORY_GROWTH, Emscripten 3.1.6's malloc returns NULL when the
// heap cannot grow (the engine refuses, or MAXIMUM_MEMORY is reached), and
// when a request needs 2 GiB or more of new heap (dlmalloc asks sbrk for less
// than 2 GiB at a time), which it then does not try. Built without
// exceptions, operator new then aborts ("Aborted()", the same as a bug), and
// C code that does not check (RapidJSON's allocator) writes through the NULL
// (wasm address 0 is ordinary memory: no trap). Here every failed malloc,
// calloc or realloc, and any operator new that fails another way (the new
// handler), records {requested, limit} as Module.pteforgeOutOfMemory and
// aborts; the wrapper (wasm/js/api.mjs) turns that abort into PteforgeError
// OUT_OF_MEMORY and replaces the instance, as it does after any abort.
#include <emscripten.h>
#include <emscripten/heap.h>

#include <cstddef>
#include <cstdlib>
#include <new>

// dlmalloc's own entry points: its malloc, calloc and realloc are weak
// aliases of the same functions, which the definitions below replace.
extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void* __libc_realloc(void* old, size_t size);

// Allocates nothing: it runs when memory is gone. `requested` is 0 when unknown.
EM_JS(void, pteforge_mark_out_of_memory, (double requested, double limit),
      { Module['pteforgeOutOfMemory'] = {requested : requested, limit : limit}; });

namespace {

[[noreturn]] void out_of_memory(double requested) {
  pteforge_mark_out_of_memory(requested, static_cast<double>(emscripten_get_heap_max()));
  std::abort();
}

void new_failed() { out_of_memory(0); }

/// Installs new_failed before any binding runs.
[[maybe_unused]] const bool kNewHandlerInstalled = [] {
  std::set_new_handler(&new_failed);
  return true;
}();

}  // namespace

extern "C" void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  if (p == nullptr) out_of_memory(static_cast<double>(size));
  return p;
}

extern "C" void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  if (p == nullptr && count != 0 && size != 0)
    out_of_memory(static_cast<double>(count) * static_cast<double>(size));
  return p;
}

extern "C" void* realloc(void* old, size_t size) {
  void* p = __libc_realloc(old, size);
  // realloc(p, 0) frees p and may return NULL: that is no failure.
  if (p == nullptr && size != 0) out_of_memory(static_cast<double>(size));
  return p;
}
