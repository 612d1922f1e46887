// --pre-js of pteforge's Node programs (the WASM CLI and doctest binaries;
// cmake/Emscripten.cmake). NODERAWFS marks fds 0-2 as terminals
// unconditionally, so isatty() would return 1 even when output is piped, and a
// program that chooses its output by isatty() (doctest's colours, a CLI's
// progress lines) would print different bytes than its native build. Ask Node.
Module['onRuntimeInitialized'] = function() {
  var tty = require('tty');
  for (var fd = 0; fd < 3; fd++) {
    if (FS.streams[fd]) FS.streams[fd].tty = tty.isatty(fd);
  }
};
