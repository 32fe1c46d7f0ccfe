// Keeps every shared library loaded until the process exits, for LeakSanitizer. `make
// test-asan` and `make scroll-asan` preload this (LD_PRELOAD); nothing else uses it.
//
// Why: at SDL_Quit, SDL unloads libGL and libEGL, which unload Mesa's driver (swrast_dri.so)
// and libglapi. Mesa allocates some things once at start and keeps them in its own globals:
// the names of the GL entry points (libglapi, 255 strdup'd strings), libEGL_mesa's display
// (1608 bytes), swrast_dri's screen. Once those libraries are unmapped, LeakSanitizer cannot
// scan their globals and reports those blocks as leaked, from "<unknown module>" (so no
// suppression can even name them). An interposed dlclose that logged the libraries' address
// ranges before they went (see docs/ARCHITECTURE.md, "Sanitizers and fuzzing") placed every
// one of those allocation sites in libglapi.so.0, libEGL_mesa.so.0 or swrast_dri.so; with the
// libraries kept, LeakSanitizer finds those blocks referenced from Mesa's globals and reports
// nothing. Nothing is suppressed: memory that nothing references is still reported.
//
// dlclose still reports success; a library that is opened again gets the same handle.
int dlclose(void *handle) {
    (void)handle;
    return 0;
}
